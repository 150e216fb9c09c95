"""Issue 2, case 5: goodbyes and record updates reach python-zeroconf.

Huddle advertises on a, python-zeroconf browses on b.
"""

import signal
import time

from conftest import TYPE
from huddle_cli import advertise
from testbed import expect, match
from zc_peer import zc_browse

GOODBYE_WITHIN = 2.0  # s from SIGTERM to python-zeroconf's Removed (RFC 6762 §10.1: 1 s grace)


def browse_until_added(b, name: str, adv):
    """Start a python-zeroconf browser on b and wait until it resolved name."""
    br = zc_browse(b, TYPE, timeout=25)
    expect(br, match("added", name=name), 8, also=[adv], what=f"{name!r} added")
    return br


def test_sigterm_goodbye_removes_instance(testbed, huddle):
    """SIGTERM to huddle advertise -> Removed at python-zeroconf within 2 s; exit code 0."""
    a, b = testbed[0], testbed[1]
    adv = advertise(a, "Bye", TYPE, 5000)
    br = browse_until_added(b, "Bye", adv)
    t0 = time.monotonic()
    adv.send_signal(signal.SIGTERM)
    ev = expect(br, match("removed", name="Bye"), 5, also=[adv], what="removed after SIGTERM")
    assert ev["_t"] - t0 <= GOODBYE_WITHIN, f"removed after {ev['_t'] - t0:.2f}s"
    assert adv.wait_exit(5) == 0, adv.output()


def test_control_quit_goodbye(testbed, huddle):
    """`quit` on --control stdin also sends goodbyes and exits 0."""
    a, b = testbed[0], testbed[1]
    adv = advertise(a, "Quit", TYPE, 5003, control=True)
    br = browse_until_added(b, "Quit", adv)
    t0 = time.monotonic()
    adv.send("quit")
    ev = expect(br, match("removed", name="Quit"), 5, also=[adv], what="removed after quit")
    assert ev["_t"] - t0 <= GOODBYE_WITHIN
    assert adv.wait_exit(5) == 0, adv.output()


def test_txt_change_reaches_zeroconf_as_update(testbed, huddle):
    """`txt v=2 extra=yes` on --control stdin -> python-zeroconf Updated with the new TXT."""
    a, b = testbed[0], testbed[1]
    adv = advertise(a, "Upd", TYPE, 5001, {"v": "1"}, control=True)
    br = browse_until_added(b, "Upd", adv)
    mark = br.mark()
    adv.send("txt v=2 extra=yes")
    expect(br, match("updated", name="Upd"), 4, start=mark, also=[adv], what="Updated callback")
    ev = expect(br, lambda e: match(("updated", "resolved"), name="Upd")(e)
                and e["txt"] == {"v": "2", "extra": "yes"}, 4, start=mark, also=[adv],
                what="new TXT at python-zeroconf")
    assert ev["port"] == 5001
    assert not [e for e in br.events(mark) if e["event"] == "removed"], br.output()


def test_port_change_reaches_zeroconf_as_update(testbed, huddle):
    """`port 5999` on --control stdin -> python-zeroconf sees the new SRV port."""
    a, b = testbed[0], testbed[1]
    adv = advertise(a, "Port", TYPE, 5002, control=True)
    br = browse_until_added(b, "Port", adv)
    mark = br.mark()
    adv.send("port 5999")
    expect(br, match(("updated", "resolved"), name="Port", port=5999), 4, start=mark,
           also=[adv], what="new port at python-zeroconf")
