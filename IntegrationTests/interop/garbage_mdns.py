"""Sends a bounded batch of malformed mDNS packets to the group and to one unicast address, then exits.

Each packet is one of: random bytes, a header alone, a header promising more records than follow, a name
whose compression pointer points at itself, a label running past the end, and a record whose length runs past
the end. The batch is deterministic for a given --seed. Prints one JSON line with what was sent.

    python3 garbage_mdns.py --count 3000 --target 10.1.2.1
"""

import argparse
import json
import random
import socket
import struct

GROUP = "224.0.0.251"
PORT = 5353


def header(qd: int, an: int, flags: int = 0) -> bytes:
    return struct.pack("!HHHHHH", 0, flags, qd, an, 0, 0)


def packets(rng: random.Random):
    """Yields (kind, bytes) forever, cycling through the kinds."""
    while True:
        yield "random", bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 600)))
        yield "header-only", header(rng.randint(1, 0xFFFF), rng.randint(1, 0xFFFF))
        # A question whose name is a compression pointer to itself (offset 12).
        yield "pointer-loop", header(1, 0) + b"\xc0\x0c" + b"\x00\x0c\x00\x01"
        # A label that claims 63 bytes where 3 follow.
        yield "label-past-end", header(1, 0) + b"\x3f" + b"abc"
        # An answer whose RDLENGTH runs past the end of the packet.
        name = b"\x05_test\x04_tcp\x05local\x00"
        yield "rdlength-past-end", header(0, 1, 0x8400) + name + struct.pack("!HHIH", 12, 1, 120, 4000) + b"\x00"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--target", required=True, help="a unicast address that also gets every packet")
    parser.add_argument("--seed", type=int, default=6762)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    sent: dict[str, int] = {}
    for _, (kind, data) in zip(range(args.count), packets(rng)):
        for destination in (GROUP, args.target):
            try:
                sock.sendto(data, (destination, PORT))
            except OSError:
                continue
            sent[kind] = sent.get(kind, 0) + 1
    print(json.dumps({"event": "sent", "kinds": sent}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
