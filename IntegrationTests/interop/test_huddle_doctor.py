"""`huddle doctor` on real test hosts: it sees the devices that answer mDNS, names the nftables rule that drops
mDNS and prints the fix (which then works), and suspects client isolation when a network passes unicast but no
multicast between devices.

Each doctor run listens 1 s (--timeout 1). Host a runs doctor with `--interface veth-a` (the default filter
leaves veth* out, which one test checks too); host b answers with `huddle advertise` or python-zeroconf. The smoke
tier runs five tests in about 10 s; the python-zeroconf responder and Avahi beside doctor on one host are in the
full tier.
"""

from __future__ import annotations

import json
import re
import sys

import pytest

from huddle_cli import advertise, huddle_bin
from testbed import Host, run
from zc_peer import zc_register

SESSION_TYPE = "_typingtogether._tcp"  # the default session's service type, which doctor asks for
PROBLEMS_FOUND = 3  # ExitCode.problemsFound


def doctor(host: Host, *args: str) -> tuple[int, str]:
    """Run `huddle doctor --interface <veth> --timeout 1 ARGS` in host; (exit status, stdout)."""
    cp = host.run(huddle_bin(), "doctor", "--interface", host.ifname, "--timeout", "1", *args,
                  timeout=30, check=False)
    assert "huddle:" not in cp.stderr, cp.stderr
    return cp.returncode, cp.stdout


def doctor_json(host: Host, *args: str) -> tuple[int, dict]:
    """`doctor --json`: exactly one JSON object on one line."""
    rc, out = doctor(host, "--json", *args)
    lines = out.splitlines()
    assert len(lines) == 1, out
    return rc, json.loads(lines[0])


def answering_addresses(report: dict, ifname: str) -> list[str]:
    """Addresses of the other devices that answered on ifname."""
    entry = next(i for i in report["multicast"]["interfaces"] if i["interface"] == ifname)
    return [a for d in entry["devices"] if not d["thisHost"] for a in d["addresses"]]


def add_drop_rule(host: Host) -> int:
    """The rule of the issue in host's namespace; returns its nftables handle."""
    host.run("nft", "add", "table", "inet", "hdtest")
    host.run("nft", "add", "chain", "inet", "hdtest", "input", "{ type filter hook input priority 0 ; }")
    host.run("nft", "add", "rule", "inet", "hdtest", "input", "udp", "dport", "5353", "drop")
    listing = host.run("nft", "-a", "list", "chain", "inet", "hdtest", "input").stdout
    found = re.search(r"udp dport 5353 drop # handle (\d+)", listing)
    assert found, listing
    return int(found.group(1))


@pytest.mark.hosts(2)
@pytest.mark.parametrize("responder", ["huddle", pytest.param("zeroconf", marks=pytest.mark.full)])
def test_reports_the_interface_and_the_answering_device(testbed, huddle, responder):
    """With b answering, doctor on a uses veth-a, hears b at its own addresses, finds nothing wrong (exit 0)."""
    a, b = testbed[0], testbed[1]
    if responder == "huddle":
        peer = advertise(b, "Bee", SESSION_TYPE, 4000)
    else:
        peer = zc_register(b, "Zed", SESSION_TYPE, 4000)
    rc, report = doctor_json(a)
    assert rc == 0, (report, peer.output())
    assert report["ok"] is True and report["findings"] == []
    used = [i for i in report["interfaces"] if i["used"]]
    assert [i["name"] for i in used] == [a.ifname]
    assert f"{a.ipv4}/24" in used[0]["addresses"]
    lo = next(i for i in report["interfaces"] if i["name"] == "lo")
    assert lo["excluded"] == "not-in-interface-list"
    assert b.ipv4 in answering_addresses(report, a.ifname), report["multicast"]
    assert report["multicast"]["questions"] == ["_services._dns-sd._udp.local PTR", f"{SESSION_TYPE}.local PTR"]


@pytest.mark.hosts(1)
def test_the_default_filter_leaves_veth_out_and_says_how_to_use_it(testbed, huddle):
    """Without --interface the only interface, veth-a, is left out by name: no-usable-interface, exit 3."""
    a = testbed[0]
    cp = a.run(huddle_bin(), "doctor", "--json", "--timeout", "1", timeout=30, check=False)
    report = json.loads(cp.stdout)
    assert cp.returncode == PROBLEMS_FOUND, cp.stdout + cp.stderr
    veth = next(i for i in report["interfaces"] if i["name"] == a.ifname)
    assert veth["used"] is False and veth["excluded"] == "virtual"
    assert f"--interface {a.ifname}" in veth["reason"]
    assert [f["code"] for f in report["findings"]] == ["no-usable-interface"]
    assert "multicast" not in report


@pytest.mark.hosts(2)
def test_names_the_nftables_rule_that_drops_mdns_and_its_fix_works(testbed, huddle):
    """A drop of udp dport 5353 on a: doctor names table, chain, handle and text, exits 3, hears nobody; its
    fix, run as printed, lets b's answers in and doctor then exits 0."""
    a, b = testbed[0], testbed[1]
    peer = advertise(b, "Bee", SESSION_TYPE, 4000)
    handle = add_drop_rule(a)
    rc, report = doctor_json(a)
    assert rc == PROBLEMS_FOUND, report
    assert report["ok"] is False
    drops = [f for f in report["findings"] if f["code"] == "firewall-drops-mdns"]
    assert len(drops) == 1, report["findings"]
    finding = drops[0]
    assert finding["severity"] == "error"
    assert finding["rule"] == {"tool": "nftables", "family": "inet", "table": "hdtest", "chain": "input",
                               "handle": handle, "text": "udp dport 5353 drop"}
    assert finding["interfaces"] == [a.ifname]
    assert finding["fix"] == f"nft insert rule inet hdtest input handle {handle} udp dport 5353 accept"
    assert answering_addresses(report, a.ifname) == []
    a.run("sh", "-c", finding["fix"])
    rc, after = doctor_json(a)
    assert rc == 0, (after, peer.output())
    assert b.ipv4 in answering_addresses(after, a.ifname)


@pytest.mark.hosts(2)
def test_names_drops_of_the_sessions_default_ports_and_of_localsend(testbed, huddle):
    """Drops of tcp and udp dport 47474 (the session's connections and datagrams without --port) and udp dport
    53317 (LocalSend's announcements): doctor names each rule with its fix (an error for the session's TCP port, a
    warning for its datagrams and for LocalSend), and after the fixes, run as printed, nothing is found."""
    a, b = testbed[0], testbed[1]
    advertise(b, "Bee", SESSION_TYPE, 4000)
    a.run("nft", "add", "table", "inet", "hdtest")
    a.run("nft", "add", "chain", "inet", "hdtest", "input", "{ type filter hook input priority 0 ; }")
    a.run("nft", "add", "rule", "inet", "hdtest", "input", "tcp", "dport", "47474", "drop")
    a.run("nft", "add", "rule", "inet", "hdtest", "input", "udp", "dport", "47474", "drop")
    a.run("nft", "add", "rule", "inet", "hdtest", "input", "udp", "dport", "53317", "drop")
    rc, report = doctor_json(a)
    assert rc == PROBLEMS_FOUND, report
    by_code = {f["code"]: f for f in report["findings"]}
    assert set(by_code) == {"firewall-drops-session-port", "firewall-drops-session-datagram-port",
                            "firewall-drops-localsend-port"}, report["findings"]
    session, datagrams, localsend = (by_code["firewall-drops-session-port"],
                                     by_code["firewall-drops-session-datagram-port"],
                                     by_code["firewall-drops-localsend-port"])
    assert session["severity"] == "error"
    assert datagrams["severity"] == "warning" and localsend["severity"] == "warning"
    assert session["rule"]["text"] == "tcp dport 47474 drop"
    assert datagrams["rule"]["text"] == "udp dport 47474 drop"
    assert "unreliable messages (UDP 47474)" in datagrams["message"], datagrams["message"]
    assert "LocalSend announcements (UDP 53317)" in localsend["message"]
    assert session["fix"].endswith("tcp dport 47474 accept"), session["fix"]
    assert datagrams["fix"].endswith("udp dport 47474 accept"), datagrams["fix"]
    assert localsend["fix"].endswith("udp dport 53317 accept"), localsend["fix"]
    for finding in (session, datagrams, localsend):
        a.run("sh", "-c", finding["fix"])
    rc, after = doctor_json(a)
    assert rc == 0 and after["findings"] == [], after["findings"]


@pytest.mark.hosts(2)
def test_plain_text_names_the_rule_and_the_fix(testbed, huddle):
    """The text report says which rule drops mDNS and prints the command that fixes it."""
    a = testbed[0]
    handle = add_drop_rule(a)
    rc, text = doctor(a)
    assert rc == PROBLEMS_FOUND, text
    assert (f"error [firewall-drops-mdns] nftables rule drops mDNS (UDP 5353) on {a.ifname} (IPv4, IPv6): "
            f"table inet hdtest, chain input, handle {handle}: udp dport 5353 drop") in text
    assert f"    fix: nft insert rule inet hdtest input handle {handle} udp dport 5353 accept" in text
    assert f"  used      {a.ifname}  {a.ipv4}/24" in text
    assert "Problems found: 2." in text  # the rule, and the silence it explains


@pytest.mark.hosts(2)
def test_unicast_but_no_multicast_between_devices_suggests_client_isolation(testbed, huddle):
    """The bridge drops the mDNS multicast frames (as an access point with client isolation would drop all
    device-to-device frames); a has b in its neighbour table: doctor suspects isolation and offers --peer."""
    a, b = testbed[0], testbed[1]
    advertise(b, "Bee", SESSION_TYPE, 4000)
    bridge = ["ip", "netns", "exec", testbed.bridge_ns, "nft"]
    run(bridge + ["add", "table", "bridge", "isolation"])
    run(bridge + ["add", "chain", "bridge", "isolation", "forward",
                  "{ type filter hook forward priority 0 ; }"])
    for group in ("01:00:5e:00:00:fb", "33:33:00:00:00:fb"):
        run(bridge + ["add", "rule", "bridge", "isolation", "forward", "ether", "daddr", group, "drop"])
    # One TCP connection attempt to b (refused) resolves b's address: a neighbour entry on veth-a.
    a.run(sys.executable, "-c",
          f"import socket; s = socket.socket(); s.settimeout(3); s.connect_ex(({b.ipv4!r}, 9))")
    assert "lladdr" in a.run("ip", "neigh", "show", "dev", a.ifname).stdout
    rc, report = doctor_json(a)
    assert rc == PROBLEMS_FOUND, report
    codes = [f["code"] for f in report["findings"]]
    assert codes == ["client-isolation-suspected"], report["findings"]
    finding = report["findings"][0]
    assert finding["severity"] == "warning"
    assert "1 other host in its neighbour table" in finding["message"]
    assert "--peer HOST[:PORT]" in finding["fix"]
    assert answering_addresses(report, a.ifname) == []


@pytest.mark.full  # Avahi beside Huddle on one host is in the smoke tier already (test_huddle_coexist)
@pytest.mark.hosts(2)
def test_coexists_with_avahi_on_port_5353(testbed, avahi, huddle):
    """avahi-daemon holds port 5353 on a: doctor shares the port, names Avahi as an info finding (exit 0), and
    still hears b."""
    a, b = testbed[0], testbed[1]
    av = avahi(a)
    advertise(b, "Bee", SESSION_TYPE, 4000)
    rc, report = doctor_json(a)
    assert rc == 0, (report, av.daemon.output())
    assert [h["name"] for h in report["port5353"]["holders"]] == ["avahi-daemon"]
    assert [f["code"] for f in report["findings"]] == ["other-responder"]
    assert report["findings"][0]["severity"] == "info"
    assert "SO_REUSEPORT" in report["findings"][0]["message"]
    assert b.ipv4 in answering_addresses(report, a.ifname)
