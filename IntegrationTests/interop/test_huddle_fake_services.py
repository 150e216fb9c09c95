"""Issue 7 (docs/security.md §5 C8): a host announces 2,000 fake Huddle peers. The chat's peer table stays at its
limit (256), so its screen shows a bounded number of arrivals; memory stays bounded; a paired device restarted
during the flood is still found and reconnected, and chat goes on.
"""

from __future__ import annotations

import base64
import os
import random
import sys
import time

import pytest

from conftest import skip_or_fail  # noqa: F401  (the fixtures' gate)
from test_huddle_chat import chat, pair
from test_huddle_hostile import cpu_seconds, rss_mib

pytestmark = pytest.mark.full  # the full run only (scripts/test --full)

FAKES = 2000
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def device_id_text(raw: bytes) -> str:
    """The text form of a device ID (see DeviceID): base32 in four blocks of 13, each with a Luhn mod 32
    check character, in groups of seven."""
    plain = base64.b32encode(raw).decode().rstrip("=")
    out = ""
    for block in range(4):
        chunk = plain[block * 13:(block + 1) * 13]
        factor, total = 2, 0
        for character in reversed(chunk):
            addend = factor * ALPHABET.index(character)
            factor = 1 if factor == 2 else 2
            total += addend // 32 + addend % 32
        out += chunk + ALPHABET[(32 - total % 32) % 32]
    return "-".join(out[i:i + 7] for i in range(0, 56, 7))


FLOOD = r"""
import json, socket, struct, sys, time
sys.path.insert(0, {here!r})
from mdns_sniffer import encode_name

def record(name, rtype, rdata, ttl=4500, flush=True):
    return encode_name(name) + struct.pack(">HHIH", rtype, 0x8001 if flush else 1, ttl, len(rdata)) + rdata

def txt(pairs):
    return b"".join(bytes([len(p)]) + p for p in pairs)

service = "_typingtogether._tcp.local"
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
s.bind(("0.0.0.0", 5353))
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton({addr!r}))
fakes = open({fakes!r}).read().split()
sent = 0
for round in range(2):
    for i, device in enumerate(fakes):
        instance = "Fake%d.%s" % (i, service)
        host = "fakehost%d.local" % (i % 50)
        records = [record(service, 12, encode_name(instance), flush=False),
                   record(instance, 33, struct.pack(">HHH", 0, 0, 9) + encode_name(host), ttl=120),
                   record(instance, 16, txt([b"v=1", b"m=p", ("id=" + device).encode(),
                                             ("in=fake%dtoken" % i).encode()])),
                   record(host, 1, socket.inet_aton({addr!r}), ttl=120)]
        s.sendto(struct.pack(">HHHHHH", 0, 0x8400, 0, len(records), 0, 0) + b"".join(records),
                 ("224.0.0.251", 5353))
        sent += 1
        if sent % 20 == 0:
            time.sleep(0.01)
print(json.dumps({{"event": "done", "sent": sent}}), flush=True)
"""


@pytest.mark.hosts(3)
def test_two_thousand_fake_peers_fill_the_table_to_its_limit_and_a_paired_peer_still_gets_through(testbed, huddle,
                                                                                                   homes):
    a, b, c = testbed[0], testbed[1], testbed[2]
    bob = chat(b, "Bob", homes("b"))
    ada = chat(a, "Ada", homes("a"))
    pair(ada, bob, "Ada", "Bob")
    assert ada.stop() == 0
    bob.wait_line(lambda l: l == "* Ada left the chat", 10)
    pid = bob.proc.pid
    base_rss, cpu_before, mark = rss_mib(pid), cpu_seconds(pid), bob.mark()
    rng = random.Random(11)
    ids = os.path.join(homes("fakes"), "ids.txt")
    with open(ids, "w") as f:
        f.write("\n".join(device_id_text(bytes(rng.getrandbits(8) for _ in range(32))) for _ in range(FAKES)))
    flood = c.spawn(sys.executable, "-c", FLOOD.format(here=os.path.dirname(os.path.abspath(__file__)),
                                                      addr=c.ipv4, fakes=ids), label="c:fake peers")
    time.sleep(2)  # in the middle of the flood, the paired device comes back
    ada = chat(a, "Ada", homes("a"))
    done = flood.wait_event(lambda e: e.get("event") == "done", 60)
    ada.wait_line(lambda l: l == "* connected to Bob", 30)
    bob.wait_line(lambda l: l == "* connected to Ada", 30, start=mark)
    ada.send("through the crowd")
    bob.wait_line(lambda l: l == "Ada: through the crowd", 10, start=mark)
    time.sleep(3)
    arrivals = [l for _, l in bob.lines[mark:] if l.startswith("* Fake") and l.endswith("is here")]
    cpu_used, after_rss = cpu_seconds(pid) - cpu_before, rss_mib(pid)
    print(f"{done['sent']} fake adverts for {FAKES} peers: Bob showed {len(arrivals)} arrivals; RSS "
          f"{base_rss:.1f} -> {after_rss:.1f} MiB; CPU {cpu_used:.1f} s")
    assert done["sent"] == 2 * FAKES
    assert 50 <= len(arrivals) <= 256, len(arrivals)  # the flood did arrive, and the table stopped it at its limit
    assert after_rss - base_rss < 80, (base_rss, after_rss)
    assert bob.proc.poll() is None, bob.output()
