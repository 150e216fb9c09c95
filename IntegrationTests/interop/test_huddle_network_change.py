"""Issue 2: interface and address changes picked up while running (RFC 6762 §8, §10.3, §13).

Huddle polls the interface list every 2 s; a change makes it probe and announce again, and an interface
that goes away takes what was learned on it along.
"""

import time

from conftest import TYPE
from huddle_cli import advertise, discover
from testbed import expect, match
from zc_peer import zc_browse, zc_register

FOUND = ("added", "updated", "resolved")
CHANGE_WITHIN = 6  # s: 2 s polling + up to 1 s probing + announcement, with margin for a loaded machine


def test_new_address_is_announced(testbed, huddle):
    """An address added to Huddle's interface reaches python-zeroconf without a restart."""
    a, b = testbed[0], testbed[1]
    adv = advertise(a, "Mover", TYPE, 4100)
    br = zc_browse(b, TYPE, timeout=30)
    expect(br, lambda e: match(FOUND, name="Mover")(e) and a.ipv4 in e["addresses"], 8, also=[adv])
    extra = f"{testbed.net4}.77"
    mark = br.mark()
    a.run("ip", "addr", "add", f"{extra}/24", "dev", a.ifname)
    ev = expect(br, lambda e: match(FOUND, name="Mover")(e) and extra in e["addresses"], CHANGE_WITHIN,
                start=mark, also=[adv], what=f"the new address {extra} at python-zeroconf")
    assert ev["port"] == 4100
    later = [e for e in adv.events() if e.get("event") in ("renamed", "hostRenamed")]
    assert not later, f"an address change must not rename anything: {later}"


def test_interface_down_forgets_and_up_finds_again(testbed, huddle):
    """huddle discover drops what it learned on an interface that goes down, and finds it again after."""
    a, c = testbed[0], testbed[2]
    zc_register(c, "Stay", TYPE, 4200)
    d = discover(a, TYPE, timeout=40)
    expect(d, match("added", name="Stay"), 8)
    mark = d.mark()
    a.run("ip", "link", "set", a.ifname, "down")
    expect(d, match("removed", name="Stay"), CHANGE_WITHIN, start=mark, what="removal after link down")
    mark = d.mark()
    a.run("ip", "link", "set", a.ifname, "up")
    expect(d, match("added", name="Stay"), CHANGE_WITHIN + 4, start=mark, what="rediscovery after link up")


def test_a_responder_whose_link_flaps_answers_again(testbed, huddle):
    """The host whose own link goes down and up keeps serving: a browser started after the flap finds it.

    Sending out of an interface whose link just went down makes the kernel fail the send, and SwiftNIO then
    closes the datagram channel; Huddle opens its socket again and rejoins the groups (it used to stay deaf
    and mute for good)."""
    a, b = testbed[0], testbed[1]
    adv = advertise(a, "Flapper", TYPE, 4300)
    a.run("ip", "link", "set", a.ifname, "down")
    time.sleep(5)
    a.run("ip", "link", "set", a.ifname, "up")
    fresh = discover(b, TYPE, timeout=40)
    expect(fresh, match("added", name="Flapper"), CHANGE_WITHIN + 4, also=[adv],
           what="a browser started after the flap finding the service")
    groups = a.run("ip", "maddr", "show", a.ifname).stdout
    assert "224.0.0.251" in groups and "ff02::fb" in groups, groups
