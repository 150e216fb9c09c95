"""The first query of a browse asks for a unicast reply (QU, RFC 6762 §5.4) while Huddle's sockets are alone on
port 5353 of their host, and not while another stack shares the port (a unicast reply would reach only one socket,
perhaps the other stack's). A responder that multicast its answer less than a second ago may not multicast it
again (§6) but may unicast it: so a browser started just after an announcement finds the service at once.
"""

from __future__ import annotations

import pytest

from huddle_cli import advertise, discover
from mdns_sniffer import PTR, Sniffer
from testbed import expect


def queries_for(sniffer: Sniffer, source: str, name: str) -> list:
    """Queries from source with a PTR question for name, in order."""
    return sniffer.packets(lambda p: p.msg is not None and not p.msg.is_response and p.src == source
                           and any(q.name.rstrip(".") == name and q.type == PTR for q in p.msg.questions))


def qu_bits(packets: list, name: str) -> list[bool]:
    return [next(q.qu for q in p.msg.questions if q.name.rstrip(".") == name) for p in packets]


@pytest.mark.hosts(2)
def test_first_query_is_qu_alone_and_qm_beside_avahi(testbed, huddle, avahi):
    a, b = testbed[0], testbed[1]
    sniffer = Sniffer(b).start()
    advertise(b, "Printer", "_lab._tcp", 631)
    # Alone on the port: the first query is QU, the ones after it QM, and the unicast answer is taken.
    browser = discover(a, "_lab._tcp", timeout=4)
    expect(browser, lambda e: e.get("event") in ("added", "updated") and e.get("name") == "Printer", 3)
    browser.wait_exit(10)
    sent = queries_for(sniffer, a.ipv4, "_lab._tcp.local")
    assert len(sent) >= 2, sent
    assert qu_bits(sent, "_lab._tcp.local")[:2] == [True, False], sent
    # Avahi shares the port on host a: no QU, ever; browsing still works by multicast.
    avahi(a)
    second = discover(a, "_lab2._tcp", timeout=4)
    advertise(b, "Scanner", "_lab2._tcp", 632)
    expect(second, lambda e: e.get("event") in ("added", "updated") and e.get("name") == "Scanner", 4)
    second.wait_exit(10)
    sent = queries_for(sniffer, a.ipv4, "_lab2._tcp.local")
    assert sent and not any(qu_bits(sent, "_lab2._tcp.local")), sent
