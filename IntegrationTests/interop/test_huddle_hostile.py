"""Issue 7: a hostile host floods `huddle chat` with idle, dripping and garbage connections and random datagrams
on every port it opens; a legitimate peer still pairs and chats meanwhile, and the target's descriptors and memory
stay bounded and come back afterwards.

Hosts: a (Ada, legitimate), b (Bob, the target), c (the attacker, IntegrationTests/interop/attacker.py). Every attack is
bounded in count and time (docs/security.md §5 C1, C2, C7, D6).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time

import pytest

from test_huddle_chat import chat, pair

pytestmark = pytest.mark.full  # the full run only (scripts/test --full)

ATTACK_SECONDS = 25


def listening_ports(host, pid: int) -> tuple[list[int], list[int]]:
    """The TCP ports pid listens on and the UDP ports it has bound, from `ss` inside host."""
    out = host.run("ss", "-Hlnptu").stdout
    tcp, udp = set(), set()
    for line in out.splitlines():
        if f"pid={pid}," not in line:
            continue
        fields = line.split()
        port = int(fields[4].rsplit(":", 1)[1])
        (tcp if fields[0] == "tcp" else udp).add(port)
    return sorted(tcp), sorted(udp)


def descriptors(pid: int) -> int:
    """Open file descriptors of pid."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def rss_mib(pid: int) -> float:
    """Resident memory of pid in MiB."""
    with open(f"/proc/{pid}/status") as f:
        kib = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))
    return kib / 1024


@pytest.mark.hosts(3)
def test_a_peer_pairs_and_chats_while_another_host_floods_every_port(testbed, huddle, homes):
    a, b, c = testbed[0], testbed[1], testbed[2]
    bob = chat(b, "Bob", homes("b"))
    pid = bob.proc.pid
    with open(f"/proc/{pid}/comm") as f:
        assert f.read().strip() == "huddle"
    tcp, udp = listening_ports(b, pid)
    assert tcp and 5353 in udp, (tcp, udp)
    time.sleep(1)
    base_fds, base_rss = descriptors(pid), rss_mib(pid)

    attacker = c.spawn(sys.executable, os.path.join(os.path.dirname(__file__), "attacker.py"),
                       "--target", b.ipv4, "--tcp", str(tcp[0]), *[f"--udp={p}" for p in udp],
                       "--seconds", str(ATTACK_SECONDS), label="c:attacker")
    time.sleep(3)  # the flood is under way
    peak_fds = descriptors(pid)

    # Meanwhile Ada finds Bob, both accept the code, and lines go both ways.
    ada = chat(a, "Ada", homes("a"))
    ada.wait_line(lambda l: l.startswith("* Bob (") and l.endswith("is here"), 20)
    pair(ada, bob, "Ada", "Bob")
    for i in range(10):
        ada.send(f"during the flood {i}")
    bob.wait_line(lambda l: l == "Ada: during the flood 9", 10)
    got = [l for _, l in bob.lines if l.startswith("Ada: during the flood")]
    assert got == [f"Ada: during the flood {i}" for i in range(10)], got
    bob.send("still here")
    ada.wait_line(lambda l: l == "Bob: still here", 10)
    for _ in range(10):
        peak_fds = max(peak_fds, descriptors(pid))
        time.sleep(0.5)

    done = attacker.wait_event(lambda e: e.get("event") == "done", ATTACK_SECONDS + 30)
    assert done["connects"] > 300 and done["datagrams_sent"] > 0, done
    # The target closed what it would not admit (the idle pool had to be refilled again and again).
    assert done["closed_by_target"] > 100, done
    assert bob.proc.poll() is None, bob.output()

    # Afterwards: descriptors back near the baseline (Ada's connection is one more), memory bounded.
    deadline = time.monotonic() + 20
    while descriptors(pid) > base_fds + 10 and time.monotonic() < deadline:
        time.sleep(0.5)
    after_fds, after_rss = descriptors(pid), rss_mib(pid)
    print(f"target fds: baseline {base_fds}, peak {peak_fds}, after {after_fds}; "
          f"RSS MiB: baseline {base_rss:.1f}, after {after_rss:.1f}; attacker: {json.dumps(done)}")
    assert peak_fds <= base_fds + 40, (base_fds, peak_fds)
    assert after_fds <= base_fds + 10, (base_fds, after_fds)
    assert after_rss - base_rss < 50, (base_rss, after_rss)

    # And the chat still works after the flood.
    ada.send("after the flood")
    bob.wait_line(lambda l: l == "Ada: after the flood", 10)


FLOOD = r"""
import socket, sys, time
sys.path.insert(0, {here!r})
from mdns_sniffer import build_query
query = build_query(({type!r} + ".local", 12))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
s.bind(("0.0.0.0", 5353))
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton({addr!r}))
sent, end = 0, time.monotonic() + {seconds}
while time.monotonic() < end:
    for _ in range(20):
        s.sendto(query, ("224.0.0.251", 5353))
        sent += 1
    time.sleep(0.01)
print('{{"event": "done", "sent": %d}}' % sent, flush=True)
"""


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of pid so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.hosts(3)
def test_a_query_flood_gets_answers_at_the_rfc_rate_and_browsing_still_works(testbed, huddle):
    """RFC 6762 §6: a record is multicast at most once a second per interface, however many ask."""
    from conftest import TYPE
    from huddle_cli import advertise, discover, renames
    from mdns_sniffer import Sniffer

    a, b, c = testbed[0], testbed[1], testbed[2]
    sniffer = Sniffer(a).start()
    adv = advertise(b, "Flooded", TYPE, 4242)
    pid = adv.proc.pid
    time.sleep(3)  # probing and announcements are over
    seconds = 6
    cpu_before, started = cpu_seconds(pid), time.time()
    flood = c.spawn(sys.executable, "-c", FLOOD.format(here=os.path.dirname(__file__), type=TYPE,
                                                       addr=c.ipv4, seconds=seconds), label="c:query flood")
    done = flood.wait_event(lambda e: e.get("event") == "done", seconds + 20)
    cpu_used = cpu_seconds(pid) - cpu_before
    time.sleep(1)
    answers = sniffer.packets(lambda p: p.src == b.ipv4 and p.msg is not None and p.msg.is_response,
                              since=started)
    rate = done["sent"] / seconds
    print(f"query flood: {done['sent']} queries in {seconds} s ({rate:.0f}/s); Huddle multicast "
          f"{len(answers)} responses; CPU {cpu_used:.2f} s")
    assert rate > 1000, done
    # One answer per second at most (plus one at either edge).
    assert 1 <= len(answers) <= seconds + 2, [p.ts for p in answers]
    assert cpu_used < 0.8 * seconds, cpu_used
    assert adv.proc.poll() is None, adv.output()
    assert renames(adv) == [], renames(adv)  # its name did not move
    # Browsing from another host still finds it, under its own name.
    d = discover(a, TYPE, timeout=10)
    d.wait_event(lambda e: e.get("name") == "Flooded" and e.get("port") == 4242, 8)


@pytest.mark.hosts(3)
def test_a_transfer_completes_through_a_burst_of_1000_connections_and_stalled_handshakes(testbed, huddle, homes):
    """1,000 connections at once, then 100 that stop after a ClientHello and never read, plus the idle, drip,
    garbage and datagram flood: a 32 MiB file from a legitimate peer arrives identical meanwhile; the target's
    descriptors stay bounded and return to the baseline; it lets the stalled handshakes go."""
    from test_huddle_transfer import make_file, sha256, spawn
    a, b, c = testbed[0], testbed[1], testbed[2]
    inbox = homes("inbox")
    bob = spawn(b, homes("b"), "receive", "--dir", inbox, "--yes", "--name", "Bob", "--port", "7000", "--json")
    bob.wait_line(lambda l: l.startswith("Receiving into"), 15)
    pid = bob.proc.pid
    _, udp = listening_ports(b, pid)
    time.sleep(1)
    base_fds, base_rss = descriptors(pid), rss_mib(pid)
    source = os.path.join(homes("files"), "big.bin")
    expected = make_file(source, 32 << 20)
    attacker = c.spawn(sys.executable, os.path.join(os.path.dirname(__file__), "attacker.py"),
                       "--target", b.ipv4, "--tcp", "7000", *[f"--udp={p}" for p in udp], "--seconds", "20",
                       "--burst", "1000", "--stalled", "100", "--idle", "100", label="c:attacker")
    peak_fds = descriptors(pid)
    time.sleep(2)  # inside the burst
    ada = spawn(a, homes("a"), "send", source, "--to", "Bob", "--yes", "--name", "Ada", "--json")
    while ada.proc.poll() is None and time.monotonic() - ada.started < 120:
        peak_fds = max(peak_fds, descriptors(pid))
        time.sleep(0.2)
    assert ada.wait_exit(5) == 0, ada.output()
    assert sha256(os.path.join(inbox, "big.bin")) == expected
    done = attacker.wait_event(lambda e: e.get("event") == "done", 60)
    assert bob.proc.poll() is None, bob.output()
    deadline = time.monotonic() + 30
    while descriptors(pid) > base_fds + 4 and time.monotonic() < deadline:
        time.sleep(0.5)
    after_fds, after_rss = descriptors(pid), rss_mib(pid)
    print(f"target fds: baseline {base_fds}, peak {peak_fds}, after {after_fds}; RSS MiB: baseline "
          f"{base_rss:.1f}, after {after_rss:.1f}; attacker: {json.dumps(done)}")
    assert done["burst_started"] == 1000 and done["stalled_handshakes"] >= 50, done
    # The stalled handshakes were let go by the target's handshake deadline, not held for ever.
    assert done["stalled_closed_by_target"] >= done["stalled_handshakes"] - 5, done
    assert peak_fds <= base_fds + 40, (base_fds, peak_fds)
    assert after_fds <= base_fds + 4, (base_fds, after_fds)
    assert after_rss - base_rss < 60, (base_rss, after_rss)
