"""Huddle's packets on the wire, seen by a raw-socket sniffer on another host (docs/mdns.md §1,
checklist A1, A2, A4, A6, A15, C1, C9, C12 and D10).

One capture of a whole advertise lifetime (start -> probes -> announcements -> SIGTERM ->
goodbyes) is shared by the shape tests (module fixture `startup`); the rate-limit test has its
own bed. Hosts: a = huddle advertise, b = mdns_sniffer.py (IPv4; kernel receive timestamps).
"""

from __future__ import annotations

import signal
import time
from dataclasses import dataclass

import pytest

from conftest import TYPE
from huddle_cli import advertise, registered
from mdns_sniffer import ANY, MDNS_GROUP, MDNS_PORT, PTR, SRV, TXT, Packet, Sniffer, build_query
from testbed import Testbed as _Testbed  # (alias: pytest would try to collect "Testbed")

NAME = "Wire"
INSTANCE = f"{NAME}.{TYPE}.local."
SERVICE_PTR = f"{TYPE}.local."
PORT = 4444
PROBE_GAP, PROBE_TOL = 0.250, 0.040    # s, RFC 6762 §8.1 (tolerance asked for by the brief)
MIN_ANNOUNCE_GAP = 0.9                 # s, RFC 6762 §8.3 "one second apart" minus jitter
GOODBYE_GAP, GOODBYE_TOL = 0.125, 0.040  # s, Huddle's documented goodbye spacing
ANNOUNCE_WAIT = 4.5                    # s after 'registered': announcements go at +0, +1, +3 s
UNIQUE_TYPES = {"SRV", "TXT", "A", "AAAA"}


@dataclass
class Trace:
    """What the sniffer saw of one Huddle lifetime, split at the SIGTERM."""
    huddle_ip: str
    packets: list[Packet]   # everything Huddle's address sent, in order
    sigterm_ts: float       # CLOCK_REALTIME of the SIGTERM
    output: str             # huddle's stdout/stderr, for messages

    def before_exit(self) -> list[Packet]:
        """Packets sent before the SIGTERM."""
        return [p for p in self.packets if p.ts < self.sigterm_ts]

    def after_exit(self) -> list[Packet]:
        """Packets sent after the SIGTERM."""
        return [p for p in self.packets if p.ts >= self.sigterm_ts]

    def dump(self) -> str:
        """All packets, one per line, for assertion messages."""
        return "\n".join(map(repr, self.packets)) + "\n" + self.output


def rtype(record) -> str:
    """Record type as text ('SRV', 'PTR', ...; numbers for the rest)."""
    return {1: "A", 12: "PTR", 16: "TXT", 28: "AAAA", 33: "SRV", 47: "NSEC"}.get(record.type,
                                                                                str(record.type))


def is_probe(p: Packet) -> bool:
    """A query asking ANY for our instance name (RFC 6762 §8.1 probe)."""
    return (p.msg is not None and not p.msg.is_response
            and any(q.name == INSTANCE and q.type == ANY for q in p.msg.questions))


def is_announcement(p: Packet) -> bool:
    """A response carrying our SRV with a non-zero TTL in the answer section."""
    return (p.msg is not None and p.msg.is_response
            and any(r.name == INSTANCE and r.type == SRV and r.ttl > 0 for r in p.msg.answers))


def is_goodbye(p: Packet) -> bool:
    """A response withdrawing our service PTR (TTL 0)."""
    return (p.msg is not None and p.msg.is_response
            and any(r.type == PTR and r.name == SERVICE_PTR and r.data == INSTANCE and r.ttl == 0
                    for r in p.msg.answers))


def gaps(packets: list[Packet]) -> list[float]:
    """Seconds between consecutive packets."""
    return [round(b.ts - a.ts, 4) for a, b in zip(packets, packets[1:])]


@pytest.fixture(scope="module")
def startup(netns_ok, huddle_ok) -> Trace:
    """Sniff one `huddle advertise` from start to SIGTERM + goodbyes (own 2-host bed)."""
    tb = _Testbed(k=2).start()
    try:
        a, b = tb[0], tb[1]
        sniffer = Sniffer(b).start()
        adv = advertise(a, NAME, TYPE, PORT, {"k": "v"})
        assert registered(adv)["name"] == NAME, adv.output()
        time.sleep(ANNOUNCE_WAIT)
        sigterm_ts = time.time()
        adv.send_signal(signal.SIGTERM)
        assert adv.wait_exit(5) == 0, adv.output()
        time.sleep(1.0)  # goodbyes are sent before exit; allow for delivery
        packets = sniffer.packets(lambda p: p.src == a.ipv4)
        yield Trace(a.ipv4, packets, sigterm_ts, adv.output())
    finally:
        tb.close()


def test_all_packets_from_5353_to_group_with_ttl_255(startup):
    """A1, A15: every packet Huddle sent came from port 5353 to 224.0.0.251 with IP TTL 255."""
    assert startup.packets, startup.dump()
    for p in startup.packets:
        assert (p.sport, p.dst, p.ttl) == (MDNS_PORT, MDNS_GROUP, 255), repr(p)
        assert p.msg is not None, repr(p)


def test_exactly_three_probes_250ms_apart(startup):
    """C1: exactly 3 probes for the instance, 250 ms +- 40 ms apart, before any announcement."""
    probes = [p for p in startup.packets if is_probe(p)]
    assert len(probes) == 3, startup.dump()
    for gap in gaps(probes):
        assert abs(gap - PROBE_GAP) <= PROBE_TOL, (gaps(probes), startup.dump())
    first_announcement = next(p for p in startup.packets if is_announcement(p))
    assert probes[-1].ts < first_announcement.ts, startup.dump()


def test_probe_shape(startup):
    """C1, A2, A4: ID 0, flags 0 (no AA in queries); ANY/IN question, QU on the first probe only;
    authority carries our SRV (port, target) and TXT."""
    probes = [p for p in startup.packets if is_probe(p)]
    assert probes, startup.dump()
    qu_bits = []
    for p in probes:
        assert (p.msg.id, p.msg.flags) == (0, 0), repr(p)
        (q,) = [q for q in p.msg.questions if q.name == INSTANCE]
        assert (q.type, q.cls) == (ANY, 1), repr(p)
        qu_bits.append(q.qu)
        mine = {rtype(r): r for r in p.msg.authorities if r.name == INSTANCE}
        assert set(mine) == {"SRV", "TXT"}, repr(p)
        assert mine["SRV"].data[2:] == (PORT, "huddle-a.local."), repr(p)
        assert mine["TXT"].data == [b"k=v"], repr(p)
    assert qu_bits == [True, False, False], startup.dump()


def test_at_least_two_announcements_a_second_apart(startup):
    """C9: >= 2 unsolicited announcements, consecutive ones >= 0.9 s apart (1 s, then doubling)."""
    announcements = [p for p in startup.before_exit() if is_announcement(p)]
    assert len(announcements) >= 2, startup.dump()
    assert all(g >= MIN_ANNOUNCE_GAP for g in gaps(announcements)), (gaps(announcements),
                                                                      startup.dump())


def test_announcement_contents(startup):
    """C9, B7: an announcement carries SRV, TXT, the service PTR and the host's A record."""
    first = next(p for p in startup.packets if is_announcement(p))
    answers = first.msg.answers
    assert any(r.type == PTR and r.name == SERVICE_PTR and r.data == INSTANCE for r in answers), \
        repr(first)
    assert any(r.type == TXT and r.name == INSTANCE and r.data == [b"k=v"] for r in answers), \
        repr(first)
    assert any(rtype(r) == "A" and r.name == "huddle-a.local." and r.data == startup.huddle_ip
               for r in answers), repr(first)


def test_response_headers(startup):
    """A2, A4, A6: every response has ID 0, QR+AA set, OPCODE/RCODE 0, TC clear, no questions
    and at least one answer (Avahi drops the rest)."""
    responses = [p for p in startup.packets if p.msg.is_response]
    assert responses, startup.dump()
    for p in responses:
        m = p.msg
        assert (m.id, m.aa, m.tc, m.opcode, m.rcode) == (0, True, False, 0, 0), repr(p)
        assert (len(m.questions), len(m.authorities)) == (0, 0), repr(p)
        assert m.answers, repr(p)


def test_cache_flush_bits(startup):
    """C9, A8: unique records (SRV, TXT, A, AAAA) carry cache-flush; shared service PTRs do not."""
    for p in (p for p in startup.packets if p.msg.is_response):
        for r in p.msg.records():
            if rtype(r) in UNIQUE_TYPES:
                assert r.cache_flush, (r, repr(p))
            elif r.type == PTR and not r.name.endswith(".arpa."):
                assert not r.cache_flush, (r, repr(p))


def test_three_goodbyes_125ms_apart(startup):
    """C12: after SIGTERM exactly 3 goodbye packets, 125 ms +- 40 ms apart, every record TTL 0,
    withdrawing the PTR, SRV and TXT."""
    goodbyes = [p for p in startup.after_exit() if is_goodbye(p)]
    assert len(goodbyes) == 3, startup.dump()
    for gap in gaps(goodbyes):
        assert abs(gap - GOODBYE_GAP) <= GOODBYE_TOL, (gaps(goodbyes), startup.dump())
    for p in goodbyes:
        assert all(r.ttl == 0 for r in p.msg.records()), repr(p)
        assert {rtype(r) for r in p.msg.answers if r.name == INSTANCE} == {"SRV", "TXT"}, repr(p)
    stray = [p for p in startup.after_exit() if p.msg.is_response and not is_goodbye(p)]
    assert not stray, f"non-goodbye responses after SIGTERM: {stray}"


# --------------------------------------------------------------------------------------------
# D10: per-record multicast rate limit (RFC 6762 §6), delayed not dropped

QUERIES, QUERY_GAP = 10, 0.1  # 10 identical PTR queries within 1 s
RATE_WINDOW = 2.0             # s from the first query: "that second + 1 s"


def ptr_answers(sniffer: Sniffer, huddle_ip: str, since: float) -> list[Packet]:
    """Multicast responses from Huddle with our service PTR in the answer section."""
    return sniffer.packets(lambda p: p.src == huddle_ip and p.multicast and p.msg is not None
                           and p.msg.is_response
                           and any(r.type == PTR and r.name == SERVICE_PTR and r.data == INSTANCE
                                   and r.ttl > 0 for r in p.msg.answers), since)


@pytest.mark.hosts(2)
def test_ptr_answer_rate_limited_not_dropped(testbed, huddle):
    """10 QM PTR queries for the type in 1 s (from b:5353) -> Huddle multicasts the PTR answer at
    least once and at most twice within 2 s, >= 1 s apart, and the second burst of queries is
    still answered after the last query (delayed, not dropped)."""
    a, b = testbed[0], testbed[1]
    sniffer = Sniffer(b).start()
    adv = advertise(a, NAME, TYPE, PORT)
    time.sleep(ANNOUNCE_WAIT + 1.0)  # announcements over, last PTR multicast >= 1 s ago
    query = build_query((SERVICE_PTR, PTR))
    sent = []
    for _ in range(QUERIES):
        sent.append(sniffer.send(query))
        time.sleep(QUERY_GAP)
    assert sent[-1] - sent[0] < 1.0, sent
    time.sleep(max(0.0, sent[0] + RATE_WINDOW + 0.3 - time.time()))
    answers = [p for p in ptr_answers(sniffer, a.ipv4, sent[0]) if p.ts <= sent[0] + RATE_WINDOW]
    context = (f"queries at {[round(t - sent[0], 3) for t in sent]}\nanswers:\n"
               + "\n".join(f"+{p.ts - sent[0]:.3f} {p!r}" for p in answers) + "\n" + adv.output())
    assert 1 <= len(answers) <= 2, context
    assert all(g >= 1.0 - 0.05 for g in gaps(answers)), context
    assert answers[-1].ts > sent[-1], "queries after the first answer were dropped, not delayed\n" \
        + context
