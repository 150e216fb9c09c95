#!/usr/bin/env python3
"""A hostile host for the robustness tests (issue 7), run inside a test host against one target address.

    python3 attacker.py --target 10.x.y.2 --tcp PORT --udp PORT [--udp PORT ...] --seconds 20

For --seconds, at the same time:
- holds --idle TCP connections open that send nothing (re-opening those the target closes);
- drips one byte a second on --drip more;
- opens --garbage connections that each send 4 KiB of random bytes (one with a frame header declaring 4 GiB);
- sends --datagrams random UDP datagrams (1–1,400 bytes) to each --udp port, spread over the time.
Every count and the time are bounded; it prints one JSON line with what it did and exits.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import time


def connect(target: str, port: int) -> socket.socket | None:
    """A non-blocking TCP connection, or None when the target refuses or the attempt fails."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect((target, port))
    except BlockingIOError:
        pass
    except OSError:
        s.close()
        return None
    return s


def alive(s: socket.socket) -> bool:
    """Whether the peer has not closed s (a read of 0 bytes or an error means closed)."""
    try:
        data = s.recv(4096)
        return data != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--target", required=True)
    p.add_argument("--tcp", type=int, required=True)
    p.add_argument("--udp", type=int, action="append", default=[])
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--idle", type=int, default=300)
    p.add_argument("--drip", type=int, default=20)
    p.add_argument("--garbage", type=int, default=50)
    p.add_argument("--datagrams", type=int, default=2000)
    a = p.parse_args()
    rng = random.Random(7)
    stats = {"connects": 0, "closed_by_target": 0, "garbage_sent": 0, "datagrams_sent": 0, "drip_bytes": 0}
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    idle: list[socket.socket] = []
    drip: list[socket.socket] = []
    end = time.monotonic() + a.seconds
    garbage_left = a.garbage
    per_tick = max(1, a.datagrams // max(1, int(a.seconds * 10)))
    datagrams_left = {port: a.datagrams for port in a.udp}
    last_drip = 0.0
    while time.monotonic() < end:
        # Keep the idle and drip pools full.
        for pool, size in ((idle, a.idle), (drip, a.drip)):
            kept = [s for s in pool if alive(s) or s.close()]
            stats["closed_by_target"] += len(pool) - len(kept)
            pool[:] = kept
            while len(pool) < size:
                s = connect(a.target, a.tcp)
                if s is None:
                    break
                stats["connects"] += 1
                pool.append(s)
        # Garbage: a few connections per tick, each 4 KiB of random bytes; the first declares a 4 GiB frame.
        for _ in range(min(garbage_left, 5)):
            payload = bytes(rng.getrandbits(8) for _ in range(4096))
            if garbage_left == a.garbage:
                payload = bytes([1, 1, 0, 0, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF]) + payload
            garbage_left -= 1
            try:
                with socket.create_connection((a.target, a.tcp), timeout=2) as s:
                    s.sendall(payload)
                    stats["garbage_sent"] += len(payload)
            except OSError:
                pass  # refused or closed by the target's admission limits: also a valid outcome
        for port in a.udp:
            for _ in range(min(per_tick, datagrams_left[port])):
                udp.sendto(os.urandom(rng.randint(1, 1400)), (a.target, port))
                datagrams_left[port] -= 1
                stats["datagrams_sent"] += 1
        if time.monotonic() - last_drip >= 1:
            last_drip = time.monotonic()
            for s in drip:
                try:
                    s.send(bytes([rng.getrandbits(8)]))
                    stats["drip_bytes"] += 1
                except OSError:
                    pass
        time.sleep(0.1)
    for s in idle + drip:
        s.close()
    print(json.dumps({"event": "done", **stats}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
