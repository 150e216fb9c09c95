"""Source-address checks (RFC 6762 §5.5, §11; checklist D6, D14/F5): a query sent by unicast to
Huddle's address from a source outside Huddle's subnets is dropped; the same query sent to the
multicast group is on-link by definition and answered by multicast.

Hosts: a = huddle advertise, b = mdns_sniffer.py with a second address OFFLINK (192.0.2.9/32,
TEST-NET-1) it can send from (IP_PKTINFO). a gets a host route to OFFLINK via veth-a, so an
answer *could* be delivered (and strict rp_filter lets the query in); the bed proves that path
before Huddle starts. An on-link unicast query is the positive control.
"""

from __future__ import annotations

import time

import pytest

from conftest import TYPE
from huddle_cli import advertise
from mdns_sniffer import MDNS_GROUP, SRV, Packet, Sniffer, build_query

pytestmark = pytest.mark.full  # the full run only (scripts/test --full)

OFFLINK = "192.0.2.9"
NAME, PORT = "Offlink", 4700
INSTANCE = f"{NAME}.{TYPE}.local."
SETTLE = 4.5    # s after 'registered': announcements (+0, +1, +3 s) are over
SILENCE = 2.0   # s to wait for an answer that must not come
ANSWER_WITHIN = 1.0  # s for answers that must come (unique answer: immediate, RFC 6762 §6)


def has_srv(p: Packet) -> bool:
    """A response carrying our SRV (port PORT) in the answer section."""
    return (p.msg is not None and p.msg.is_response
            and any(r.name == INSTANCE and r.type == SRV and r.data[2] == PORT
                    for r in p.msg.answers))


def offlink_bed(testbed):
    """OFFLINK on b, a route back from a, the sniffer on b (checked to receive a unicast datagram
    from a to OFFLINK:5353), then huddle advertise on a, settled -> (a, b, sniffer, adv)."""
    a, b = testbed[0], testbed[1]
    b.run("ip", "addr", "add", f"{OFFLINK}/32", "dev", b.ifname)
    a.run("ip", "route", "add", f"{OFFLINK}/32", "dev", a.ifname)
    sniffer = Sniffer(b).start()
    a.run("python3", "-c", "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
          f"s.sendto(bytes(12), ('{OFFLINK}', 5353))")
    sniffer.wait_packet(lambda p: p.src == a.ipv4 and p.dst == OFFLINK, 3)  # bed self-check
    adv = advertise(a, NAME, TYPE, PORT)
    time.sleep(SETTLE)
    return a, b, sniffer, adv


def test_offlink_unicast_query_dropped(testbed, huddle):
    """D14/F5: SRV query from OFFLINK:5353 to a:5353 -> nothing from Huddle for 2 s; the same
    query from b's on-link address -> unicast answer to b within 1 s (control, D6)."""
    a, b, sniffer, adv = offlink_bed(testbed)
    query = build_query((INSTANCE, SRV))
    t0 = sniffer.send(query, dst=a.ipv4, src=OFFLINK)
    time.sleep(SILENCE)
    answers = sniffer.packets(lambda p: p.src == a.ipv4 and p.msg is not None and p.msg.is_response,
                              since=t0)
    assert not answers, f"Huddle answered an off-link unicast query: {answers}\n{adv.output()}"
    t1 = sniffer.send(query, dst=a.ipv4)
    reply = sniffer.wait_packet(lambda p: p.src == a.ipv4 and has_srv(p), ANSWER_WITHIN + 1, since=t1)
    assert reply.dst == b.ipv4 and reply.ts - t1 <= ANSWER_WITHIN, repr(reply)
    assert (reply.sport, reply.msg.id, reply.ttl) == (5353, 0, 255), repr(reply)


def test_offlink_multicast_query_answered_by_multicast(testbed, huddle):
    """D14/F5: the SRV query multicast from OFFLINK (on-link by definition) -> multicast answer
    within 1 s, and nothing unicast to OFFLINK."""
    a, b, sniffer, adv = offlink_bed(testbed)
    t0 = sniffer.send(build_query((INSTANCE, SRV)), dst=MDNS_GROUP, src=OFFLINK)
    reply = sniffer.wait_packet(lambda p: p.src == a.ipv4 and has_srv(p), ANSWER_WITHIN + 1, since=t0)
    assert reply.dst == MDNS_GROUP and reply.ts - t0 <= ANSWER_WITHIN, repr(reply)
    time.sleep(0.5)
    unicast = sniffer.packets(lambda p: p.src == a.ipv4 and p.dst == OFFLINK, since=t0)
    assert not unicast, f"unicast to the off-link source: {unicast}\n{adv.output()}"
