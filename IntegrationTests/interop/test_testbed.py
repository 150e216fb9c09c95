"""Self-tests of the test bed: Avahi <-> python-zeroconf, no Huddle involved.

They prove the bed (namespaces, multicast over the bridge, avahi per host, the
peer scripts, dig parsing) so that a failing Huddle test points at Huddle.
"""

import time

import pytest

from avahi_peer import published_name, resolved
from conftest import TYPE
from dns_tools import dig
from zc_peer import has_v4, has_v6, registered_name, strip_scope, zc_browse, zc_register


def test_ipv6_link_local_ready(testbed):
    """Every host has a usable fe80:: address on its veth and IPv4 on the bridge."""
    for h in testbed.hosts:
        assert h.ipv6_ll and h.ipv6_ll.startswith("fe80:")
        out = h.run("ip", "-6", "addr", "show", "dev", h.ifname).stdout
        assert "tentative" not in out, out


@pytest.mark.hosts(2, dad=True, ula=True)
def test_dad_and_ula_variant(testbed):
    """With DAD on, the bed waits until fe80:: is no longer tentative; ULAs are present."""
    for h in testbed.hosts:
        out = h.run("ip", "-6", "addr", "show", "dev", h.ifname).stdout
        assert h.ipv6_ll in out and h.ula in out and "tentative" not in out, out
    assert len(testbed.hosts) == 2


def test_zeroconf_resolves_avahi(testbed, avahi):
    """python-zeroconf (b) resolves a service published by avahi-publish (a)."""
    a, b = testbed[0], testbed[1]
    avahi(a).publish("Avahi Svc", TYPE, 1234, {"k": "v", "flag": True})
    br = zc_browse(b, TYPE, timeout=10)
    ev = br.wait_event(lambda e: e.get("name") == "Avahi Svc" and e.get("port") == 1234
                       and has_v4(e["addresses"]) and has_v6(e["addresses"]), 8)
    assert ev["host"] == "avahi-a.local"
    assert ev["txt"] == {"k": "v", "flag": True}
    assert a.ipv4 in ev["addresses"]
    assert a.ipv6_ll in strip_scope(ev["addresses"])


def test_avahi_resolves_zeroconf(testbed, avahi):
    """avahi-browse -rpt (a) resolves a python-zeroconf service (c) on IPv4 and IPv6."""
    a, c = testbed[0], testbed[2]
    zc_register(c, "Py Svc", TYPE, 4321, {"x": "1", "f": True})
    av = avahi(a)
    entries = av.browse_until(TYPE, lambda es: {e["protocol"] for e in resolved(es, "Py Svc")}
                              == {"IPv4", "IPv6"})
    for e in resolved(entries, "Py Svc"):
        assert (e["port"], e["txt"], e["host"]) == (4321, {"x": "1", "f": True}, "zc-c.local")
    assert c.ipv4 in {e["address"] for e in resolved(entries, "Py Svc")}


def test_conflict_zeroconf_renames_against_avahi(testbed, avahi):
    """Avahi holds 'Svc'; python-zeroconf registering 'Svc' becomes 'Svc-2'."""
    a, b = testbed[0], testbed[1]
    avahi(a).publish("Svc", TYPE, 1111)
    time.sleep(1)
    assert registered_name(zc_register(b, "Svc", TYPE, 2222)) == "Svc-2"


def test_conflict_avahi_renames_against_zeroconf(testbed, avahi):
    """python-zeroconf holds 'Hold'; avahi-publish 'Hold' ends up as 'Hold #2'."""
    a, b = testbed[0], testbed[1]
    zc_register(b, "Hold", TYPE, 2222)
    pub = avahi(a).publish("Hold", TYPE, 1111, wait=None)
    pub.wait_line(lambda l: l.startswith("Established under name"), 15)
    assert published_name(pub) == "Hold #2", pub.output()


def test_goodbye_zeroconf_seen_by_zeroconf(testbed):
    """Unregistering (goodbye) a python-zeroconf service is seen as removed < 2 s."""
    b, c = testbed[1], testbed[2]
    reg = zc_register(c, "Bye", TYPE, 5000)
    br = zc_browse(b, TYPE, timeout=15)
    br.wait_event(lambda e: e.get("event") == "added" and e.get("name") == "Bye", 8)
    t0 = time.monotonic()
    reg.send("quit")
    ev = br.wait_event(lambda e: e.get("event") == "removed" and e.get("name") == "Bye", 3)
    assert ev["_t"] - t0 < 2.0


def test_legacy_unicast_against_avahi(testbed, avahi, dig_ok):
    """dig -p 5353 to avahi: ID echoed (dig checks), answer present, TTL <= 10."""
    a, b = testbed[0], testbed[1]
    avahi(a).publish("Legacy", TYPE, 7000)
    srv = dig(b, a.ipv4, f"Legacy.{TYPE}.local", "SRV")
    assert srv.status == "NOERROR" and not srv.warnings, srv.raw
    assert [x for x in srv.answers if x["type"] == "SRV" and x["ttl"] <= 10
            and x["rdata"].split()[2] == "7000"], srv.raw
    ptr = dig(b, a.ipv4, f"{TYPE}.local", "PTR")
    assert any(x["type"] == "PTR" and x["rdata"] == f"Legacy.{TYPE}.local." and x["ttl"] <= 10
               for x in ptr.answers), ptr.raw


def test_avahi_and_zeroconf_share_a_host(testbed, avahi):
    """avahi-daemon and python-zeroconf in one namespace: a peer on b sees both."""
    a, b = testbed[0], testbed[1]
    avahi(a).publish("From Avahi", TYPE, 1001)
    zc_register(a, "From Zc", TYPE, 1002)
    br = zc_browse(b, TYPE, timeout=10)
    for name, port in (("From Avahi", 1001), ("From Zc", 1002)):
        br.wait_event(lambda e: e.get("name") == name and e.get("port") == port, 8)
