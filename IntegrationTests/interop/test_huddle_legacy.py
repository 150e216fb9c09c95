"""Issue 2, case 7: legacy unicast queries (RFC 6762 §6.7) answered by Huddle.

`dig -p 5353 @<huddle ip>` from another host sends from an ephemeral port; the reply
must echo the ID (dig checks and otherwise reports a mismatch/time-out) and the
question, carry the answer, and cap every TTL at 10 s.
"""

import pytest

from conftest import TYPE
from dns_tools import dig
from huddle_cli import advertise

INSTANCE = f"Legacy.{TYPE}.local"


def check_reply(res, adv) -> None:
    """Reply arrived, NOERROR, no dig warnings, has answers, every TTL <= 10."""
    context = res.raw + "\n" + adv.output()
    assert res.rc == 0 and res.status == "NOERROR", context
    assert not res.warnings, context
    assert res.answers, context
    assert all(x["ttl"] <= 10 for x in res.answers), context


@pytest.mark.parametrize("family", ["ipv4", "ipv6"])
def test_legacy_srv(testbed, huddle, dig_ok, family):
    """SRV for the instance: port 7000, target huddle-a.local."""
    a, b = testbed[0], testbed[1]
    adv = advertise(a, "Legacy", TYPE, 7000)
    server = a.ipv4 if family == "ipv4" else f"{a.ipv6_ll}%{b.ifname}"
    res = dig(b, server, INSTANCE, "SRV")
    check_reply(res, adv)
    srv = [x for x in res.answers if x["type"] == "SRV"]
    assert srv and srv[0]["name"] == INSTANCE + ".", res.raw
    prio, weight, port, target = srv[0]["rdata"].split()
    assert (port, target) == ("7000", "huddle-a.local."), res.raw


def test_legacy_ptr(testbed, huddle, dig_ok):
    """PTR for the service type lists the instance."""
    a, b = testbed[0], testbed[1]
    adv = advertise(a, "Legacy", TYPE, 7000)
    res = dig(b, a.ipv4, f"{TYPE}.local", "PTR")
    check_reply(res, adv)
    assert any(x["type"] == "PTR" and x["rdata"] == INSTANCE + "." for x in res.answers), res.raw


def test_legacy_txt_and_host(testbed, huddle, dig_ok):
    """TXT of the instance and the A record of the host name."""
    a, b = testbed[0], testbed[1]
    adv = advertise(a, "Legacy", TYPE, 7000, {"k": "v"})
    txt = dig(b, a.ipv4, INSTANCE, "TXT")
    check_reply(txt, adv)
    assert any(x["type"] == "TXT" and x["rdata"] == '"k=v"' for x in txt.answers), txt.raw
    addr = dig(b, a.ipv4, "huddle-a.local", "A")
    check_reply(addr, adv)
    assert any(x["type"] == "A" and x["rdata"] == a.ipv4 for x in addr.answers), addr.raw


def test_host_answers_right_after_registered(testbed, huddle, dig_ok):
    """Once `registered` is printed, the SRV target (host name) must be answerable too.

    'registered' means probing succeeded (CLI contract); the host name is part of
    what the service needs, so its A record must be established by then.
    """
    a, b = testbed[0], testbed[1]
    adv = advertise(a, "Legacy", TYPE, 7000)
    addr = dig(b, a.ipv4, "huddle-a.local", "A", timeout=1)
    check_reply(addr, adv)
    assert any(x["type"] == "A" and x["rdata"] == a.ipv4 for x in addr.answers), addr.raw
