"""Issue 2, case 6: Huddle and avahi-daemon in the same host (both bind UDP 5353
with SO_REUSEADDR + SO_REUSEPORT, docs/mdns.md §1.F F9) both keep working."""

import pytest

from avahi_peer import resolved
from conftest import TYPE
from huddle_cli import advertise, discover
from testbed import expect, match
from zc_peer import zc_browse


def start_both(a, avahi, order: str):
    """Start avahi-daemon (+ avahi-publish) and huddle advertise on a in the given order."""
    if order == "avahi-first":
        av = avahi(a)
        av.publish("Avahi Side", TYPE, 1001)
        adv = advertise(a, "Huddle Side", TYPE, 1002)
    else:
        adv = advertise(a, "Huddle Side", TYPE, 1002)
        av = avahi(a)
        av.publish("Avahi Side", TYPE, 1001)
    return av, adv


@pytest.mark.parametrize("order", ["avahi-first", "huddle-first"])
def test_remote_peer_sees_both(testbed, avahi, huddle, order):
    """A python-zeroconf peer on b sees both services of host a."""
    a, b = testbed[0], testbed[1]
    av, adv = start_both(a, avahi, order)
    br = zc_browse(b, TYPE, timeout=12)
    for name, port in (("Avahi Side", 1001), ("Huddle Side", 1002)):
        expect(br, match(("added", "updated"), name=name, port=port), 8,
               also=[adv, av.daemon], what=name)
    assert adv.proc.poll() is None, adv.output()
    assert av.daemon.proc.poll() is None, av.daemon.output()


def test_same_host_stacks_see_each_other(testbed, avahi, huddle):
    """On host a itself, avahi-browse finds Huddle's service and huddle discover Avahi's."""
    a = testbed[0]
    av, adv = start_both(a, avahi, "avahi-first")
    entries = av.browse_until(TYPE, lambda es: resolved(es, "Huddle Side"))
    assert {e["port"] for e in resolved(entries, "Huddle Side")} == {1002}
    d = discover(a, TYPE, timeout=8)
    expect(d, match(("added", "updated"), name="Avahi Side", port=1001), 7, also=[adv])
