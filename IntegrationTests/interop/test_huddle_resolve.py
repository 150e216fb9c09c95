"""Issue 2, cases 1-3 and 8: Huddle <-> python-zeroconf / Avahi discovery and resolution.

Hosts: a = Huddle, b/c = peers (python-zeroconf, avahi-daemon), one bridge.
"""

import unicodedata

from avahi_peer import resolved
from conftest import TYPE
from huddle_cli import advertise, discover, registered
from testbed import expect, match
from zc_peer import has_v4, has_v6, strip_scope, zc_browse, zc_register

FOUND = ("added", "updated", "resolved")  # zc_browse events carrying resolved info
UNICODE_NAME = unicodedata.normalize("NFC", "My.Printer (Küche) 打印机")


def fully_resolved(name: str, port: int):
    """zc_browse predicate: instance name with port and both an IPv4 and an IPv6 address."""
    return lambda e: (match(FOUND, name=name, port=port)(e)
                      and has_v4(e["addresses"]) and has_v6(e["addresses"]))


def test_zeroconf_resolves_huddle(testbed, huddle):
    """1. python-zeroconf (b) resolves Huddle's service: name, port, TXT, host, A + AAAA."""
    a, b = testbed[0], testbed[1]
    adv = advertise(a, "Huddle Svc", TYPE, 4242, {"k": "v", "flag": True})
    assert registered(adv)["name"] == "Huddle Svc"
    assert registered(adv)["port"] == 4242
    br = zc_browse(b, TYPE, timeout=12)
    ev = expect(br, fully_resolved("Huddle Svc", 4242), 8, also=[adv],
                what="python-zeroconf to resolve 'Huddle Svc' with IPv4+IPv6")
    assert ev["txt"] == {"k": "v", "flag": True}
    assert ev["host"] == "huddle-a.local"
    assert a.ipv4 in ev["addresses"]
    assert a.ipv6_ll in strip_scope(ev["addresses"])


def check_huddle_event(ev: dict, host, port: int, txt: dict, server: str, iface: str) -> None:
    """Assert the fields of a huddle discover added/updated event."""
    assert ev["type"] == TYPE and ev["domain"] == "local", ev
    assert (ev["port"], ev["txt"]) == (port, txt), ev
    assert ev["host"].rstrip(".") == server, ev
    assert host.ipv4 in ev["addresses"], ev
    assert ev.get("interface") == iface, ev


def test_huddle_resolves_zeroconf_and_avahi(testbed, avahi, huddle):
    """2. huddle discover (a) resolves services of avahi-publish (b) and python-zeroconf (c)."""
    a, b, c = testbed[0], testbed[1], testbed[2]
    pub = avahi(b).publish("Avahi Svc", TYPE, 1234, {"k": "v", "flag": True})
    reg = zc_register(c, "Py Svc", TYPE, 4321, {"x": "1", "e": ""})
    d = discover(a, TYPE, timeout=8)
    want = {"Avahi Svc": (b, 1234, {"k": "v", "flag": True}, "avahi-b.local"),
            "Py Svc": (c, 4321, {"x": "1", "e": ""}, "zc-c.local")}
    for name, (host, port, txt, server) in want.items():
        ev = expect(d, lambda e: match(("added", "updated"), name=name)(e)
                    and host.ipv4 in (e.get("addresses") or []), 7, also=[pub, reg],
                    what=f"huddle discover to resolve {name!r} with {host.ipv4}")
        check_huddle_event(ev, host, port, txt, server, a.ifname)
    assert d.wait_exit(10) == 0, d.output()


def test_huddle_discover_count_exits(testbed, huddle):
    """huddle discover --count 1 exits 0 right after the first added event."""
    a, c = testbed[0], testbed[2]
    zc_register(c, "Count Svc", TYPE, 4000)
    d = discover(a, TYPE, timeout=20, count=1)
    expect(d, match("added", name="Count Svc"), 8)
    assert d.wait_exit(3) == 0, d.output()


def test_huddle_enumerates_types(testbed, avahi, huddle):
    """huddle discover --json (no type) lists the types published by Avahi and python-zeroconf."""
    a, b, c = testbed[0], testbed[1], testbed[2]
    avahi(b).publish("Avahi Svc", "_avtype._tcp", 1234)
    zc_register(c, "Py Svc", "_pytype._udp", 4321)
    d = discover(a, None, timeout=8)
    for t in ("_avtype._tcp", "_pytype._udp"):
        expect(d, match("type", type=t), 7, what=f"type {t}")


def test_avahi_browse_sees_huddle(testbed, avahi, huddle):
    """3. avahi-browse -rpt (b) sees Huddle's service with port/TXT on IPv4 and IPv6."""
    a, b = testbed[0], testbed[1]
    adv = advertise(a, "Huddle Svc", TYPE, 4242, {"k": "v", "flag": True, "e": ""})
    av = avahi(b)
    try:
        entries = av.browse_until(TYPE, lambda es: {e["protocol"] for e in
                                                    resolved(es, "Huddle Svc")} == {"IPv4", "IPv6"})
    except Exception as e:
        raise AssertionError(f"{e}\n{adv.output()}") from None
    for e in resolved(entries, "Huddle Svc"):
        assert (e["port"], e["txt"], e["host"]) == \
            (4242, {"k": "v", "flag": True, "e": ""}, "huddle-a.local"), e
    addrs = {e["address"] for e in resolved(entries, "Huddle Svc")}
    assert a.ipv4 in addrs, entries


def test_unicode_name_seen_exactly_by_zeroconf(testbed, huddle):
    """8. 'My.Printer (Küche) 打印机' advertised by Huddle is seen exactly by python-zeroconf."""
    a, b = testbed[0], testbed[1]
    adv = advertise(a, UNICODE_NAME, TYPE, 631, {"rp": "printers/kueche"})
    assert registered(adv)["name"] == UNICODE_NAME
    br = zc_browse(b, TYPE, timeout=12)
    ev = expect(br, match(FOUND, port=631), 8, also=[adv], what="the unicode service")
    assert ev["name"] == UNICODE_NAME, (ev["name"], UNICODE_NAME)
    assert ev["txt"] == {"rp": "printers/kueche"}


def test_unicode_name_seen_exactly_by_avahi(testbed, avahi, huddle):
    """8b. The same name through avahi-browse -p (decimal-escaped, unescaped by the harness)."""
    a, b = testbed[0], testbed[1]
    advertise(a, UNICODE_NAME, TYPE, 631)
    entries = avahi(b).browse_until(TYPE, lambda es: [e for e in es if e["event"] == "="])
    assert {e["name"] for e in entries} == {UNICODE_NAME}
