"""Hostile input on the mDNS port: a host sends 3,000 malformed packets (random bytes, truncated headers,
compression loops, labels and records running past the end) to the group and to Huddle's address. Huddle keeps
answering: python-zeroconf resolves its service afterwards with the right port and TXT, and `huddle discover`
still finds a service registered after the garbage (the DNS codec refuses what it cannot parse, RFC 6762 §18).

Hosts: a = Huddle, b = python-zeroconf, c = the sender of garbage.
"""

import os
import sys

from conftest import TYPE
from huddle_cli import advertise, discover, registered
from testbed import expect, match
from zc_peer import zc_browse, zc_register

HERE = os.path.dirname(os.path.abspath(__file__))


def test_malformed_mdns_packets_are_ignored_and_huddle_keeps_answering(testbed, huddle):
    a, b, c = testbed[0], testbed[1], testbed[2]
    adv = advertise(a, "Sturdy", TYPE, 4400, {"k": "v"})
    assert registered(adv)["name"] == "Sturdy"
    d = discover(a, TYPE, timeout=60)
    sender = c.run(sys.executable, os.path.join(HERE, "garbage_mdns.py"), "--count", "3000", "--target", a.ipv4,
                   timeout=60)
    assert '"sent"' in sender.stdout, sender.stdout + sender.stderr
    assert adv.proc.poll() is None and d.proc.poll() is None, "huddle ended after malformed packets"
    # A browser that starts only now gets Huddle's answers: the responder is not wedged.
    br = zc_browse(b, TYPE, timeout=30)
    ev = expect(br, lambda e: match(("added", "updated", "resolved"), name="Sturdy")(e) and a.ipv4 in e["addresses"],
                15, also=[adv], what="python-zeroconf to resolve 'Sturdy' after the garbage")
    assert (ev["port"], ev["txt"]) == (4400, {"k": "v"}), ev
    # And the querier still learns: a service registered after the garbage is found.
    zc_register(b, "After Garbage", TYPE, 4401)
    expect(d, match("added", name="After Garbage"), 15, also=[adv], what="huddle discover to find a new service")
    assert adv.proc.poll() is None and d.proc.poll() is None
