"""Network faults on test hosts (issue 7): a relay that delays, jitters, reorders and duplicates, nftables rules
that redirect, drop and duplicate packets (with counters), and `tc tbf` rate limits.

`tc netem` is not available on these machines; everything here uses nftables, `tc tbf` and `fault_relay.py`.
All rules live in the test hosts' own namespaces and vanish with them.
"""

from __future__ import annotations

import os
import re
import sys

from testbed import Host, LineProc

RELAY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fault_relay.py")
TABLE = "hfault"


def relay(host: Host, *, tcp: tuple = (), udp: tuple = (), **options) -> LineProc:
    """Start fault_relay.py in host; tcp/udp are (listen port, target Host, target port); options become flags
    (delay_ms=100 → --delay-ms 100, split=True → --split)."""
    argv = [sys.executable, RELAY]
    for listen, target, port in tcp:
        argv += ["--tcp", f"{listen}={target.ipv4}:{port}"]
    for listen, target, port in udp:
        argv += ["--udp", f"{listen}={target.ipv4}:{port}"]
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        argv += [flag] if value is True else [flag, str(value)]
    proc = host.spawn(*argv, label=f"{host.letter}:relay")
    proc.wait_event(lambda e: e.get("event") == "ready", 10)
    return proc


def relay_stats(proc: LineProc) -> dict:
    """Stops the relay and returns its counters."""
    proc.stop()
    stats = [e for e in proc.events() if e.get("event") == "stats"]
    assert stats, proc.output()
    return stats[-1]


def _table(host: Host) -> None:
    """The fault table and its chains in host (idempotent)."""
    host.run("nft", "add", "table", "ip", TABLE)
    host.run("nft", "add", "chain", "ip", TABLE, "nat_out", "{ type nat hook output priority -100 ; }")
    host.run("nft", "add", "chain", "ip", TABLE, "filter_out", "{ type filter hook output priority 0 ; }")
    host.run("nft", "add", "chain", "ip", TABLE, "filter_in", "{ type filter hook input priority 0 ; }")


def redirect(host: Host, to: Host, port: int, via: Host, via_port: int, proto: str = "tcp") -> None:
    """Packets host sends to to:port go to via:via_port instead (DNAT; answers are mapped back)."""
    _table(host)
    host.run("nft", "add", "rule", "ip", TABLE, "nat_out", "ip", "daddr", to.ipv4, proto, "dport", str(port),
             "counter", "dnat", "to", f"{via.ipv4}:{via_port}")


def drop(host: Host, percent: int, proto: str = "tcp") -> None:
    """host drops percent % of the proto packets it receives, at random (mDNS on 5353 is spared for udp)."""
    _table(host)
    spare = ["udp", "dport", "!=", "5353"] if proto == "udp" else []
    host.run("nft", "add", "rule", "ip", TABLE, "filter_in", "meta", "l4proto", proto, *spare,
             "numgen", "random", "mod", "100", "<", str(percent), "counter", "drop")


def duplicate(host: Host, to: Host, percent: int) -> None:
    """host sends percent % of its TCP packets to `to` twice (nftables dup)."""
    _table(host)
    host.run("nft", "add", "rule", "ip", TABLE, "filter_out", "ip", "daddr", to.ipv4, "meta", "l4proto", "tcp",
             "numgen", "random", "mod", "100", "<", str(percent), "counter", "dup", "to", to.ipv4, "device",
             host.ifname)


def counters(host: Host) -> dict[str, int]:
    """Packets counted per rule kind in host's fault table: {"dnat": n, "drop": n, "dup": n}."""
    listing = host.run("nft", "list", "table", "ip", TABLE).stdout
    found = {"dnat": 0, "drop": 0, "dup": 0}
    for line in listing.splitlines():
        m = re.search(r"counter packets (\d+) bytes \d+ (dnat|drop|dup)", line)
        if m:
            found[m.group(2)] += int(m.group(1))
    return found


def rate_limit(host: Host, mbit: int) -> None:
    """Everything host sends leaves at most at mbit Mbit/s (a token bucket, `tc tbf`)."""
    host.run("tc", "qdisc", "add", "dev", host.ifname, "root", "tbf", "rate", f"{mbit}mbit", "burst", "64kb",
             "latency", "200ms")


def small_tcp_buffers(host: Host, kib: int = 64) -> None:
    """TCP sockets made in host from now on buffer at most `kib` KiB each way (net.ipv4.tcp_rmem and tcp_wmem are
    per namespace), so a peer that stops reading fills what lies between quickly."""
    size = kib * 1024
    host.run("sysctl", "-q", "-w", f"net.ipv4.tcp_rmem=4096 16384 {size}")
    host.run("sysctl", "-q", "-w", f"net.ipv4.tcp_wmem=4096 16384 {size}")


def link(host: Host, up: bool) -> None:
    """Sets host's link up or down (nothing tells either side: both notice by silence)."""
    host.run("ip", "link", "set", host.ifname, "up" if up else "down")
