"""Huddle on a dual-homed host: two interfaces on two separate links (docs/mdns.md §1, checklist
D12, F3, F6; §4.7 item 8).

Bed: a second bridge (Testbed second_link / second_only). Host a has veth-a on link 1 and
veth2-a on link 2 (another subnet) and runs `huddle advertise --interface veth-a --interface
veth2-a`. Link 1: b (sniffer), d (python-zeroconf). Link 2 only: c (sniffer), e
(python-zeroconf). Each link must hear Huddle's announcements and only that link's addresses
of Huddle (RFC 6762 §14: records are per interface; docker-style leaks, bug class 6), and the
names must not change.
"""

import time

import pytest

from conftest import TYPE
from huddle_cli import advertise, registered
from mdns_sniffer import SRV, Packet, Sniffer
from testbed import expect, match
from zc_peer import strip_scope, zc_browse

pytestmark = pytest.mark.full  # the full run only (scripts/test --full)

NAME = "Dual"
INSTANCE = f"{NAME}.{TYPE}.local."
HOST_NAME = "huddle-a.local."
PORT = 4300
STABLE = 10.0           # s the names must stay unchanged (brief: 10 s)
FOUND = ("added", "updated", "resolved")

DUAL = pytest.mark.hosts(5, second_link=["a"], second_only=["c", "e"])


def start_dual(testbed):
    """Sniffers on b (link 1) and c (link 2), browsers on d and e, then huddle advertise on a
    with both interfaces. Returns (adv, {link: (sniffer, browser, huddle ipv4, huddle fe80)})."""
    a, b, c, d, e = testbed.hosts
    assert (b.link, d.link, c.link, e.link) == (1, 1, 2, 2)
    sniffers = {1: Sniffer(b).start(), 2: Sniffer(c).start()}
    browsers = {1: zc_browse(d, TYPE, timeout=STABLE + 10),
                2: zc_browse(e, TYPE, timeout=STABLE + 10)}
    adv = advertise(a, NAME, TYPE, PORT, extra=("--interface", a.ifname2))
    links = {1: (sniffers[1], browsers[1], a.ipv4, a.ipv6_ll),
             2: (sniffers[2], browsers[2], a.ipv4_2, a.ipv6_ll2)}
    return adv, links


def huddle_packets(sniffer: Sniffer, huddle_ips: set[str]) -> list[Packet]:
    """Decoded packets the sniffer got from any of Huddle's addresses."""
    return sniffer.packets(lambda p: p.src in huddle_ips and p.msg is not None)


def addresses_in(packets: list[Packet]) -> set[str]:
    """A and AAAA rdata in all sections of packets."""
    return {r.data for p in packets for r in p.msg.records() if r.type in (1, 28)}


def is_announcement(p: Packet) -> bool:
    """Unsolicited-looking response carrying our SRV with TTL > 0."""
    return p.msg.is_response and any(r.name == INSTANCE and r.type == SRV and r.ttl > 0
                                     for r in p.msg.answers)


@DUAL
def test_each_link_sees_only_its_own_address(testbed, huddle):
    """D12: python-zeroconf on link 1 resolves Dual to a's link-1 addresses only, on link 2 to
    the link-2 ones only, during the whole run."""
    adv, links = start_dual(testbed)
    for link, (_, br, ipv4, _) in links.items():
        expect(br, lambda e: match(FOUND, name=NAME, port=PORT)(e) and ipv4 in e["addresses"], 8,
               also=[adv], what=f"link {link}: {NAME!r} resolved with {ipv4}")
    time.sleep(3)  # let the browsers' follow-up 'resolved' events come in
    for link, (_, br, ipv4, ll) in links.items():
        own = {ipv4, ll}
        other = {v[2] for k, v in links.items() if k != link} | {v[3] for k, v in links.items()
                                                                   if k != link}
        seen = {x for e in br.events() if e.get("name") == NAME
                for x in strip_scope(e.get("addresses") or [])}
        assert ipv4 in seen, (link, seen, br.output())
        assert not seen & other, f"link {link} got the other link's addresses {seen & other}\n" \
            + br.output() + adv.output()
        assert seen <= own, (link, seen, own)


@DUAL
def test_announced_on_both_links_with_per_link_records(testbed, huddle):
    """F3, D12: >= 2 announcements on each link, sent from that link's address, with the same
    SRV (host name, port) but only that link's A/AAAA records."""
    adv, links = start_dual(testbed)
    time.sleep(4.5)  # announcements at +0, +1, +3 s after 'registered'
    all_ips = {v[2] for v in links.values()}
    for link, (sniffer, _, ipv4, ll) in links.items():
        packets = huddle_packets(sniffer, all_ips)
        dump = f"link {link}:\n" + "\n".join(map(repr, packets)) + "\n" + adv.output()
        assert {p.src for p in packets} == {ipv4}, dump
        announcements = [p for p in packets if is_announcement(p)]
        assert len(announcements) >= 2, dump
        for p in announcements:
            srv = [r.data for r in p.msg.answers if r.name == INSTANCE and r.type == SRV]
            assert srv and srv[0][2:] == (PORT, HOST_NAME), dump
        assert addresses_in(packets) == {ipv4, ll}, dump


@DUAL
def test_names_stable_for_10s(testbed, huddle):
    """F6/F7: on two links Huddle keeps 'Dual' and its host name (no renamed/hostRenamed) for
    10 s, and keeps running."""
    adv, links = start_dual(testbed)
    assert registered(adv)["name"] == NAME and registered(adv)["host"] == HOST_NAME.rstrip(".")
    time.sleep(STABLE)
    events = [e["event"] for e in adv.events()]
    assert events.count("registered") == 1, adv.output()
    changes = [e for e in adv.events() if e.get("event") in ("renamed", "hostRenamed")]
    assert not changes, f"names changed on a dual-homed host: {changes}\n{adv.output()}"
    assert adv.proc.poll() is None, adv.output()
    for link, (_, br, _, _) in links.items():
        assert not [e for e in br.events() if e.get("event") == "removed"], br.output()
        assert {e["name"] for e in br.events() if e.get("event") in FOUND} == {NAME}, br.output()
