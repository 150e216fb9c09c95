"""Subtypes (RFC 6763 §7.1, checklist B4) and service-type enumeration (§9, B5) between Huddle,
python-zeroconf and Avahi.

`huddle advertise ... --subtype _printer` publishes `_printer._sub._lab._tcp.local.` PTR ->
instance. avahi-browse takes the subtype form directly (`avahi-browse -rpt
_printer._sub._lab._tcp`, its output then names the base type `_lab._tcp`); python-zeroconf
browses `_printer._sub._lab._tcp.local.` and reports the instance as `Name._lab._tcp.local.`
(zc_browse.py strips only the browsed type). Each positive case has a service without the
subtype next to it that must not show up.
"""

from __future__ import annotations

from avahi_peer import parse_browse_line, resolved
from conftest import TYPE
from huddle_cli import advertise, discover
from testbed import TestbedError as BedError  # (alias: pytest would try to collect "Test*")
from testbed import expect, match, run, wait_until
from zc_peer import _script, zc_browse

SUBTYPE = f"_printer._sub.{TYPE}"
SUB_NAME, SUB_PORT = "Sub Svc", 4500
PLAIN_NAME, PLAIN_PORT = "Plain Svc", 4501
ENUM_TYPE = "_hdenum._tcp"  # only Huddle publishes it
FOUND = ("added", "updated", "resolved")


def advertise_sub_and_plain(a, c):
    """Huddle on a with the subtype, Huddle on c without it (negative control); both registered."""
    sub = advertise(a, SUB_NAME, TYPE, SUB_PORT, {"k": "v"}, extra=("--subtype", "_printer"))
    plain = advertise(c, PLAIN_NAME, TYPE, PLAIN_PORT)
    return sub, plain


def test_zeroconf_browses_huddle_subtype(testbed, huddle):
    """B4: python-zeroconf (b) browsing _printer._sub._lab._tcp resolves Huddle's 'Sub Svc'
    (port, TXT, host, a's IPv4) and never lists the subtype-less 'Plain Svc'."""
    a, b, c = testbed[0], testbed[1], testbed[2]
    sub, plain = advertise_sub_and_plain(a, c)
    br = zc_browse(b, SUBTYPE, timeout=6)
    ev = expect(br, match(FOUND, name=f"{SUB_NAME}.{TYPE}.local.", port=SUB_PORT), 5,
                also=[sub], what=f"{SUB_NAME!r} under {SUBTYPE}")
    assert (ev["txt"], ev["host"]) == ({"k": "v"}, "huddle-a.local"), ev
    assert a.ipv4 in ev["addresses"], ev
    assert br.wait_exit(10) == 0, br.output()
    names = {e["name"] for e in br.events() if e.get("event") in FOUND}
    assert names == {f"{SUB_NAME}.{TYPE}.local."}, br.output() + plain.output()


def test_avahi_browses_huddle_subtype(testbed, avahi, huddle):
    """B4: `avahi-browse -rpt _printer._sub._lab._tcp` (b) resolves 'Sub Svc' on IPv4 and IPv6,
    and not 'Plain Svc'."""
    a, b, c = testbed[0], testbed[1], testbed[2]
    sub, plain = advertise_sub_and_plain(a, c)
    av = avahi(b)
    try:
        entries = av.browse_until(SUBTYPE, lambda es: {e["protocol"] for e in
                                                       resolved(es, SUB_NAME)} == {"IPv4", "IPv6"})
    except BedError as e:
        raise AssertionError(f"{e}\n{sub.output()}") from None
    for e in resolved(entries, SUB_NAME):
        assert (e["type"], e["port"], e["txt"], e["host"]) == \
            (TYPE, SUB_PORT, {"k": "v"}, "huddle-a.local"), e
    assert a.ipv4 in {e["address"] for e in resolved(entries, SUB_NAME)}, entries
    assert not [e for e in entries if e["name"] == PLAIN_NAME], entries


def test_huddle_discovers_avahi_subtype(testbed, avahi, huddle):
    """B4: `huddle discover _printer._sub._lab._tcp` (a) finds avahi-publish --subtype's
    'Avahi Sub' (port, host, b's IPv4) and never the subtype-less 'Avahi Plain'."""
    a, b = testbed[0], testbed[1]
    av = avahi(b)
    pub = av.publish("Avahi Sub", TYPE, 1234, {"s": "1"}, subtype=SUBTYPE)
    av.publish("Avahi Plain", TYPE, 1235)
    d = discover(a, SUBTYPE, timeout=6)
    ev = expect(d, lambda e: match(("added", "updated"), name="Avahi Sub", port=1234)(e)
                and b.ipv4 in (e.get("addresses") or []), 5, also=[pub],
                what="huddle discover to resolve 'Avahi Sub' via the subtype")
    assert (ev["type"], ev["host"].rstrip("."), ev["txt"]) == \
        (TYPE, "avahi-b.local", {"s": "1"}), ev
    assert d.wait_exit(10) == 0, d.output()
    assert {e.get("name") for e in d.events()} == {"Avahi Sub"}, d.output()


def zc_types(host, timeout: float = 3) -> list[str]:
    """One ZeroconfServiceTypes.find() run in host (peers/zc_types.py) -> short type names."""
    proc = host.spawn(*_script("zc_types.py"), "--timeout", str(timeout),
                      label=f"{host.letter}:zc_types")
    ev = proc.wait_event(lambda e: e.get("event") == "types", timeout + 10)
    return ev["types"]


def test_huddle_type_in_zeroconf_service_types(testbed, huddle):
    """B5: python-zeroconf's ZeroconfServiceTypes.find() on b lists Huddle's _hdenum._tcp."""
    a, b = testbed[0], testbed[1]
    adv = advertise(a, "Enum Svc", ENUM_TYPE, 4600)
    seen: list[list[str]] = []

    def found() -> bool:
        """One find() run; True once it lists ENUM_TYPE."""
        seen.append(zc_types(b))
        return ENUM_TYPE in seen[-1]
    try:
        wait_until(found, timeout=10, interval=0, what=f"{ENUM_TYPE} in find()")
    except BedError as e:
        raise AssertionError(f"{e}; find() returned {seen}\n{adv.output()}") from None


def avahi_browse_all(av) -> list[dict]:
    """One `avahi-browse -a -t -p` run (every type from _services._dns-sd._udp), parsed."""
    cp = run(av.argv("avahi-browse", "-a", "-t", "-p"), timeout=15, check=False)
    return [e for e in map(parse_browse_line, cp.stdout.splitlines()) if e]


def test_huddle_type_in_avahi_browse_all(testbed, avahi, huddle):
    """B5: `avahi-browse -a -t -p` on b lists Huddle's instance under _hdenum._tcp (IPv4 + IPv6)."""
    a, b = testbed[0], testbed[1]
    adv = advertise(a, "Enum Svc", ENUM_TYPE, 4600)
    av = avahi(b)
    last: list[dict] = []

    def listed() -> bool:
        """One avahi-browse -a run; True once Enum Svc appears under ENUM_TYPE on both families."""
        nonlocal last
        last = avahi_browse_all(av)
        return {e["protocol"] for e in last if e["event"] == "+" and e["type"] == ENUM_TYPE
                and e["name"] == "Enum Svc"} == {"IPv4", "IPv6"}
    try:
        wait_until(listed, timeout=12, interval=0.3, what=f"{ENUM_TYPE} in avahi-browse -a")
    except BedError as e:
        raise AssertionError(f"{e}; last entries: {last}\n{adv.output()}") from None
