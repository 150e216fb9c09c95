"""Self-tests of the test bed: Avahi <-> python-zeroconf, no Huddle involved.

They prove the bed (namespaces, multicast over the bridge, avahi per host, the
peer scripts, dig parsing, the routed subnets: unicast crosses the router,
multicast does not) so that a failing Huddle test points at Huddle.
"""

import ipaddress
import json
import os
import sys
import time

import pytest

from avahi_peer import published_name, resolved
from conftest import TYPE
from dns_tools import dig
from mdns_sniffer import PTR, Sniffer, build_query
import testbed as bed
from testbed import ns_pids, run
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


# Routed bed (docs/mdns.md §4.1): a and b on subnet 1, c on subnet 2, a router between them that
# forwards unicast (IPv4 and the fd00:: ULAs) but not multicast.
ROUTED = pytest.mark.hosts(3, subnets={"c": 2}, router=True, ula=True)

# TCP server: listen on argv[1]:argv[2], print "listening", accept one connection (10 s at most),
# print "peer <address>", answer "pong".
TCP_SERVER = """
import socket, sys
s = socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(1)
s.settimeout(10)
print("listening", flush=True)
conn, peer = s.accept()
print("peer", peer[0], flush=True)
conn.sendall(b"pong")
conn.close()
"""

# TCP client: connect to argv[1]:argv[2] (2 s at most), print what the server sent.
TCP_CLIENT = """
import socket, sys
with socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=2) as c:
    c.settimeout(2)
    print(c.recv(16).decode())
"""


def router_sysctl(testbed, key: str) -> str:
    """Value of sysctl key inside the router namespace."""
    return run(["ip", "netns", "exec", testbed.router_ns, "sysctl", "-n", key]).stdout.strip()


def tcp_round_trip(server_host, client_host, address: str, port: int) -> str:
    """Connect from client_host to a one-shot TCP server on server_host at address:port; return
    the source address the server saw (the client must have read the server's answer)."""
    server = server_host.spawn(sys.executable, "-u", "-c", TCP_SERVER, address, str(port),
                               label=f"{server_host.letter}:tcp-server")
    server.wait_line(lambda l: l == "listening", 5)
    out = client_host.run(sys.executable, "-c", TCP_CLIENT, address, str(port), timeout=10)
    assert out.stdout.strip() == "pong", out
    return server.wait_line(lambda l: l.startswith("peer "), 5).split()[1]


@ROUTED
def test_routed_bed_shape(testbed):
    """Subnets, router addresses, routes via the router (no default route), forwarding on, no
    multicast routing and nothing running in the router."""
    a, b, c = testbed.hosts
    assert (a.subnet, b.subnet, c.subnet) == (1, 1, 2)
    net1, net2 = (ipaddress.ip_network(testbed.cidr4[n]) for n in (1, 2))
    assert ipaddress.ip_address(a.ipv4) in net1 and ipaddress.ip_address(b.ipv4) in net1
    assert ipaddress.ip_address(c.ipv4) in net2 and net1 != net2
    assert ipaddress.ip_address(testbed.router_ipv4[1]) in net1
    assert ipaddress.ip_address(testbed.router_ipv4[2]) in net2
    assert ipaddress.ip_address(c.ula) in ipaddress.ip_network(testbed.cidr6[2])
    for h, other in ((a, 2), (b, 2), (c, 1)):
        routes = json.loads(h.run("ip", "-j", "route", "show").stdout)
        assert {"dst": testbed.cidr4[other], "gateway": testbed.router_ipv4[h.subnet],
                "dev": h.ifname} in [{k: r.get(k) for k in ("dst", "gateway", "dev")}
                                     for r in routes], routes
        assert not [r for r in routes if r["dst"] == "default"], routes
        routes6 = json.loads(h.run("ip", "-j", "-6", "route", "show").stdout)
        assert [r for r in routes6 if r["dst"] == testbed.cidr6[other]
                and r.get("gateway") == testbed.router_ula[h.subnet]], routes6
    assert router_sysctl(testbed, "net.ipv4.ip_forward") == "1"
    assert router_sysctl(testbed, "net.ipv6.conf.all.forwarding") == "1"
    assert router_sysctl(testbed, "net.ipv4.conf.all.mc_forwarding") == "0"
    # A kernel built without IPv6 multicast routing (CONFIG_IPV6_MROUTE) has no mc_forwarding file and no
    # ip6_mr_cache: it cannot forward IPv6 multicast at all, which is what this asks.
    if os.path.exists("/proc/sys/net/ipv6/conf/all/mc_forwarding"):
        assert router_sysctl(testbed, "net.ipv6.conf.all.mc_forwarding") == "0"
    else:
        assert not os.path.exists("/proc/net/ip6_mr_cache")
    assert ns_pids(testbed.router_ns) == []


@ROUTED
def test_routed_unicast_reaches_the_other_subnet(testbed):
    """TCP from a (subnet 1) to c (subnet 2) over IPv4 and over the ULAs, not rewritten on the
    way (c sees a's own address)."""
    a, _, c = testbed.hosts
    assert tcp_round_trip(c, a, c.ipv4, 4401) == a.ipv4
    assert tcp_round_trip(c, a, c.ula, 4402) == a.ula


@ROUTED
def test_mdns_multicast_does_not_cross_the_router(testbed):
    """An mDNS query multicast from a reaches b (same subnet, IP TTL 255) but not c behind the
    router, although a unicast datagram a sends to c right after it does arrive (IP TTL 254:
    one hop). c waits 1.5 s past the send for the multicast."""
    a, b, c = testbed.hosts
    sniff_a, sniff_b, sniff_c = Sniffer(a).start(), Sniffer(b).start(), Sniffer(c).start()
    query = build_query((f"{TYPE}.local.", PTR), ident=0)
    marker = build_query((f"marker.{TYPE}.local.", PTR), ident=4242)
    t0 = sniff_a.send(query)
    sniff_a.send(marker, dst=c.ipv4)
    seen_b = sniff_b.wait_packet(lambda p: p.multicast and p.raw == query, 5, since=t0)
    assert (seen_b.src, seen_b.ttl) == (a.ipv4, 255), seen_b
    seen_c = sniff_c.wait_packet(lambda p: p.raw == marker, 5, since=t0)
    assert (seen_c.src, seen_c.dst, seen_c.ttl) == (a.ipv4, c.ipv4, 254), seen_c
    time.sleep(max(0.0, t0 + 1.5 - time.time()))
    assert sniff_c.packets(lambda p: p.multicast or p.raw == query, since=t0) == []


@pytest.mark.hosts(3, subnets={"b": 2, "c": 3}, router=True)
def test_three_subnets_reach_each_other_by_unicast(testbed):
    """a, b and c on subnets 1, 2 and 3 (c is where a DNS server would run): a unicast datagram
    from each to each arrives from the sender's own address after one router hop."""
    hosts = testbed.hosts
    assert [h.subnet for h in hosts] == [1, 2, 3]
    assert sorted(testbed.router_ipv4) == [1, 2, 3]
    sniffers = {h.letter: Sniffer(h).start() for h in hosts}
    for src in hosts:
        for dst in hosts:
            if src is dst:
                continue
            data = build_query((f"{src.letter}-to-{dst.letter}.{TYPE}.local.", PTR), ident=7)
            t0 = sniffers[src.letter].send(data, dst=dst.ipv4)
            p = sniffers[dst.letter].wait_packet(lambda p: p.raw == data, 5, since=t0)
            assert (p.src, p.ttl) == (src.ipv4, 254), p


@pytest.mark.hosts(1)
def test_no_default_route_unless_asked(testbed):
    """By default a host has its subnet's route and no default route: an address off the bed is
    unreachable."""
    (a,) = testbed.hosts
    assert testbed.default_gateway == {}
    routes = json.loads(a.run("ip", "-j", "route", "show").stdout)
    assert [r["dst"] for r in routes] == [testbed.cidr4[1]], routes
    cp = a.run("ip", "route", "get", "192.0.2.1", check=False)
    assert cp.returncode != 0 and "unreachable" in cp.stderr, cp


@pytest.mark.hosts(3, subnets={"c": 2}, router=True, default_route=True)
def test_default_route_leads_nowhere(testbed):
    """default_route=True: each host's default route goes via .253 of its own subnet, which no
    host and not the router has; the kernel then picks veth-<x> and the host's own address for an
    address off the bed and for the LocalSend multicast group (`ip route get` sends nothing)."""
    taken = {h.ipv4 for h in testbed.hosts} | set(testbed.router_ipv4.values())
    assert testbed.default_gateway == {1: f"{testbed.net4}.253", 2: f"{testbed.net4_2}.253"}
    assert not taken & set(testbed.default_gateway.values())
    for h in testbed.hosts:
        gw = testbed.default_gateway[h.subnet]
        assert ipaddress.ip_address(gw) in ipaddress.ip_network(testbed.cidr4[h.subnet])
        routes = json.loads(h.run("ip", "-j", "route", "show").stdout)
        assert [(r.get("gateway"), r.get("dev")) for r in routes if r["dst"] == "default"] \
            == [(gw, h.ifname)], routes
        for dst in ("192.0.2.1", "224.0.0.167"):
            got = json.loads(h.run("ip", "-j", "route", "get", dst).stdout)[0]
            assert (got["dev"], got["prefsrc"]) == (h.ifname, h.ipv4), got


def test_routed_bed_removes_everything_when_start_fails(netns_ok):
    """A routed bed whose start() fails after the router exists deletes all its namespaces."""
    class Broken(bed.Testbed):
        """Fails while adding the first host's routes."""
        def _add_routes(self, h):
            raise bed.TestbedError("broken on purpose")
    tb = Broken(k=2, subnets={"b": 2}, router=True)
    with pytest.raises(bed.TestbedError, match="broken on purpose"):
        tb.start()
    assert tb.router_ns in tb.namespaces and tb.closed
    listed = run(["ip", "netns", "list"]).stdout
    left = [line for line in listed.splitlines() if line.split()[0].startswith(tb.prefix)]
    assert left == [], listed
