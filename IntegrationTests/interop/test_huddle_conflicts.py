"""Issue 2, case 4: service-name conflicts between Huddle and python-zeroconf / Avahi.

Conventions (docs/mdns.md §1.C C6): Huddle renames `Svc` -> `Svc (2)`, python-zeroconf
-> `Svc-2`, Avahi -> `Svc #2`. After settling, no side may keep renaming (checked
for STABLE seconds).
"""

import time

from avahi_peer import published_name, resolved
from conftest import TYPE
from huddle_cli import advertise, registered, renames
from testbed import expect, match
from zc_peer import registered_name, zc_browse, zc_register

STABLE = 4.0  # seconds a settled name must stay unchanged


def assert_huddle_renamed_once(adv) -> None:
    """Huddle ended as 'Svc (2)' after exactly one renamed event Svc -> Svc (2)."""
    assert registered(adv)["name"] == "Svc (2)", adv.output()
    got = [(e["from"], e["to"]) for e in renames(adv)]
    assert got == [("Svc", "Svc (2)")], adv.output()


def assert_huddle_stable(adv, name: str) -> None:
    """Over STABLE seconds Huddle prints no further renamed/registered events, keeps running."""
    mark = adv.mark()
    time.sleep(STABLE)
    later = [e for e in adv.events(mark) if e.get("event") in ("renamed", "registered")]
    assert not later, f"huddle kept changing its name after settling on {name!r}: {later}"
    assert adv.proc.poll() is None, adv.output()


def test_huddle_renames_when_zeroconf_holds_name(testbed, huddle):
    """python-zeroconf (b) holds 'Svc' -> huddle (a) registers 'Svc (2)'; c sees both."""
    a, b, c = testbed[0], testbed[1], testbed[2]
    zc_register(b, "Svc", TYPE, 2222)
    adv = advertise(a, "Svc", TYPE, 1111, wait=20)
    assert_huddle_renamed_once(adv)
    assert_huddle_stable(adv, "Svc (2)")
    br = zc_browse(c, TYPE, timeout=12)
    expect(br, match(("added", "updated"), name="Svc", port=2222), 8)
    expect(br, match(("added", "updated"), name="Svc (2)", port=1111), 8)


def test_huddle_renames_when_avahi_holds_name(testbed, avahi, huddle):
    """Avahi (b) holds 'Svc' -> huddle (a) registers 'Svc (2)'; avahi keeps 'Svc'."""
    a, b = testbed[0], testbed[1]
    av = avahi(b)
    pub = av.publish("Svc", TYPE, 2222)
    adv = advertise(a, "Svc", TYPE, 1111, wait=20)
    assert_huddle_renamed_once(adv)
    assert_huddle_stable(adv, "Svc (2)")
    assert published_name(pub) == "Svc", pub.output()
    entries = av.browse_until(TYPE, lambda es: resolved(es, "Svc (2)"))
    assert {e["port"] for e in resolved(entries, "Svc (2)")} == {1111}


def test_zeroconf_renames_when_huddle_holds_name(testbed, huddle):
    """Huddle (a) holds 'Svc' -> python-zeroconf (b) becomes 'Svc-2'; Huddle keeps 'Svc'."""
    a, b, c = testbed[0], testbed[1], testbed[2]
    adv = advertise(a, "Svc", TYPE, 1111)
    reg = zc_register(b, "Svc", TYPE, 2222)
    assert registered_name(reg) == "Svc-2", reg.output() + adv.output()
    assert_huddle_stable(adv, "Svc")
    assert registered(adv)["name"] == "Svc" and not renames(adv), adv.output()
    br = zc_browse(c, TYPE, timeout=12)
    expect(br, match(("added", "updated"), name="Svc", port=1111), 8)
    expect(br, match(("added", "updated"), name="Svc-2", port=2222), 8)


def test_avahi_renames_when_huddle_holds_name(testbed, avahi, huddle):
    """Huddle (a) holds 'Svc' -> avahi-publish (b) prints a collision, becomes 'Svc #2'."""
    a, b = testbed[0], testbed[1]
    adv = advertise(a, "Svc", TYPE, 1111)
    av = avahi(b)
    time.sleep(1)  # let avahi's cache see Huddle's records (it renames from cache, too)
    pub = av.publish("Svc", TYPE, 2222, wait=None)
    pub.wait_line(lambda l: l.startswith("Established under name"), 15)
    assert any("collision" in l.lower() for _, l in pub.lines), pub.output()  # "Service name collision" or (from cache) "Name collision, picking new name"
    assert published_name(pub) == "Svc #2", pub.output()
    mark = pub.mark()
    assert_huddle_stable(adv, "Svc")
    assert not [l for _, l in pub.lines[mark:] if "collision" in l.lower()], pub.output()
    assert registered(adv)["name"] == "Svc" and not renames(adv), adv.output()
    entries = av.browse_until(TYPE, lambda es: resolved(es, "Svc") and resolved(es, "Svc #2"))
    assert {e["port"] for e in resolved(entries, "Svc")} == {1111}
    assert {e["port"] for e in resolved(entries, "Svc #2")} == {2222}
