"""Issue 7: a host floods conflicting mDNS announcements for Huddle's names (RFC 6762 §9 conflicts).

Huddle follows the RFC: a conflicting record for a name it owns sends it back to probing, and a name that is
really taken is given up for the next one (`Svc` → `Svc (2)`). Under a flood that must happen once and stay put
(no flapping back and forth), with a bounded number of packets and bounded CPU; browsing from another host finds
the renamed service at the right address. An attacker that chases every new name makes Huddle rename again, but no
faster than §8.1 allows (after 15 conflicts in 10 s, one attempt per 5 s).
"""

from __future__ import annotations

import os
import sys
import time

import pytest

from conftest import TYPE
from huddle_cli import advertise, discover, registered, renames
from mdns_sniffer import Sniffer
from test_huddle_hostile import cpu_seconds

pytestmark = pytest.mark.full  # the full run only (scripts/test --full)

SPOOFER = r"""
import json, select, socket, struct, sys, time
sys.path.insert(0, {here!r})
from mdns_sniffer import encode_name, parse_message

def record(name, rtype, rdata, ttl=120):
    return encode_name(name) + struct.pack(">HHIH", rtype, 0x8001, ttl, len(rdata)) + rdata

def claims(instance, host):
    srv = struct.pack(">HHH", 0, 0, 9) + encode_name("spoofed.local")
    out = [record(instance, 33, srv), record(instance, 16, b"\x07spoofed")]
    if host:
        out.append(record(host, 1, socket.inet_aton("10.255.255.254")))
    return struct.pack(">HHHHHH", 0, 0x8400, 0, len(out), 0, 0) + b"".join(out)

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
s.bind(("0.0.0.0", 5353))
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton({addr!r}))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton("224.0.0.251") + socket.inet_aton({addr!r}))
names = {{{instance!r}: {host!r}}}
sent, end = 0, time.monotonic() + {seconds}
while time.monotonic() < end:
    while {chase} and select.select([s], [], [], 0)[0]:
        data, src = s.recvfrom(9000)
        if src[0] != {target!r}:
            continue
        try:
            message = parse_message(data)
        except Exception:
            continue
        for r in message.records():
            if r.type == 33 and r.ttl > 0 and r.name.rstrip(".").lower().endswith({type!r}.lower() + ".local"):
                names.setdefault(r.name.rstrip("."), None)
    for instance, host in list(names.items())[-8:]:
        s.sendto(claims(instance, host), ("224.0.0.251", 5353))
        sent += 1
    time.sleep(1 / {rate})
print(json.dumps({{"event": "done", "sent": sent, "names": sorted(names)}}), flush=True)
"""


def spoof(host, target, instance: str, target_host: str | None, seconds: float, rate: int, chase: bool):
    """Run the spoofer in host against target's names; returns its process."""
    code = SPOOFER.format(here=os.path.dirname(os.path.abspath(__file__)), addr=host.ipv4, target=target.ipv4,
                          instance=instance, host=target_host, seconds=seconds, rate=rate, chase=chase,
                          type=TYPE)
    return host.spawn(sys.executable, "-c", code, label=f"{host.letter}:spoofer")


@pytest.mark.hosts(3)
def test_a_flood_of_conflicting_announcements_renames_once_and_the_name_stays(testbed, huddle):
    """300 conflicting responses a second for 8 s claim the service name and the host name: Huddle renames each
    once and keeps the new names; it sends a bounded number of packets; another host resolves the renamed service
    to Huddle's real address."""
    a, b, c = testbed[0], testbed[1], testbed[2]
    sniffer = Sniffer(a).start()
    adv = advertise(b, "Svc", TYPE, 4242)
    time.sleep(3)  # probing and announcements are over
    instance = f"Svc.{TYPE}.local"
    seconds = 8
    cpu_before, started = cpu_seconds(adv.proc.pid), time.time()
    flood = spoof(c, b, instance, "huddle-b.local", seconds, 300, chase=False)
    done = flood.wait_event(lambda e: e.get("event") == "done", seconds + 20)
    cpu_used = cpu_seconds(adv.proc.pid) - cpu_before
    mark = adv.mark()
    time.sleep(4)
    sent = sniffer.packets(lambda p: p.src == b.ipv4, since=started)
    hosts = [(e["from"], e["to"]) for e in adv.events() if e.get("event") == "hostRenamed"]
    print(f"{done['sent']} spoofed responses in {seconds} s; Huddle: renames {renames(adv)}, host renames {hosts},"
          f" {len(sent)} packets, CPU {cpu_used:.2f} s")
    assert done["sent"] >= 150 * seconds, done
    assert [(e["from"], e["to"]) for e in renames(adv)] == [("Svc", "Svc (2)")], adv.output()
    assert len(hosts) == 1 and hosts[0][0] == "huddle-b", adv.output()
    assert not [e for e in adv.events(mark) if e.get("event") in ("renamed", "hostRenamed")], adv.output()
    assert len(sent) <= 40, [(p.ts, p.msg) for p in sent]
    assert cpu_used < 0.5 * seconds, cpu_used
    browse = discover(a, TYPE, timeout=10)
    found = browse.wait_event(lambda e: e.get("name") == "Svc (2)" and e.get("port") == 4242, 8)
    assert b.ipv4 in found.get("addresses", [b.ipv4]) and "10.255.255.254" not in found.get("addresses", []), found


@pytest.mark.hosts(3)
def test_an_attacker_chasing_every_new_name_is_slowed_to_the_rfc_rate(testbed, huddle):
    """A spoofer claims every name Huddle announces, for 20 s: Huddle keeps renaming, but after 15 conflicts in
    10 s no faster than one attempt per 5 s (RFC 6762 §8.1); it stays up and settles once the spoofer stops."""
    a, b, c = testbed[0], testbed[1], testbed[2]
    adv = advertise(b, "Svc", TYPE, 4242)
    time.sleep(3)
    seconds = 20
    flood = spoof(c, b, f"Svc.{TYPE}.local", None, seconds, 50, chase=True)
    done = flood.wait_event(lambda e: e.get("event") == "done", seconds + 20)
    moves = [e["_t"] for e in renames(adv)]
    print(f"chasing spoofer claimed {len(done['names'])} names with {done['sent']} responses; Huddle renamed "
          f"{len(moves)} times, gaps {[round(y - x, 1) for x, y in zip(moves, moves[1:])]}")
    assert len(moves) >= 2, adv.output()  # the spoofer did chase
    assert len(moves) <= 15 + seconds / 5 + 2, moves
    late = [y - x for x, y in zip(moves[15:], moves[16:])]
    assert all(gap >= 4.5 for gap in late), late
    assert adv.proc.poll() is None, adv.output()
    time.sleep(8)  # the last attempt (5 s back-off, probes, announcements) ends without a conflict
    final = registered(adv)
    assert final["name"] == renames(adv)[-1]["to"], adv.output()
    browse = discover(a, TYPE, timeout=10)
    browse.wait_event(lambda e: e.get("name") == final["name"] and e.get("port") == 4242, 8)
