#!/usr/bin/env python3
"""Peer-session benchmark on the namespace test bed (not collected by pytest).

  HUDDLE_BIN=.build/release/huddle python3 IntegrationTests/interop/bench_sessions.py [--rtt 5000] [--messages 200000]

Two test hosts a (client) and b (server), same run, side by side:
  raw TCP:  sockperf ping-pong --tcp (1000-byte messages) and sockperf throughput --tcp
  Huddle:   huddle-peer-bench client --mode rtt | throughput | connect against `serve` on b
            (mutual TLS 1.3, pinned keys, the session's framing)
  mesh:     huddle-peer-bench mesh --sessions 32 inside host a (loopback)
Prints each figure and Huddle's ratio to the raw TCP figure.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peer_bench import client, peer_bench_bin, serve  # noqa: E402
from testbed import Testbed, netns_available  # noqa: E402


def sockperf(a, b, seconds: int) -> dict:
    """Raw TCP figures from sockperf between a and b."""
    server = b.spawn("sockperf", "server", "--tcp", "-i", b.ipv4, "-p", "11111", label="b:sockperf")
    time.sleep(0.5)
    pp = a.run("sockperf", "ping-pong", "--tcp", "-i", b.ipv4, "-p", "11111", "-m", "1000", "-t", str(seconds),
               timeout=seconds + 20).stdout
    tp = a.run("sockperf", "throughput", "--tcp", "-i", b.ipv4, "-p", "11111", "-m", "1000", "-t",
               str(seconds), timeout=seconds + 20).stdout
    server.stop()
    p50 = float(re.search(r"percentile 50\.000 =\s+([\d.]+)", pp).group(1))
    p99 = float(re.search(r"percentile 99\.000 =\s+([\d.]+)", pp).group(1))
    rate = float(re.search(r"Message Rate is (\d+)", tp).group(1))
    # sockperf reports one-way latency (half the round trip) in its percentiles.
    return {"rtt_p50_us": 2 * p50, "rtt_p99_us": 2 * p99, "messages_per_s": rate}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rtt", type=int, default=5000, help="round trips measured")
    parser.add_argument("--messages", type=int, default=200_000, help="messages in the throughput run")
    parser.add_argument("--connects", type=int, default=50, help="reconnects measured")
    parser.add_argument("--mesh", type=int, default=32, help="sessions in the mesh")
    parser.add_argument("--seconds", type=int, default=5, help="duration of each sockperf run")
    args = parser.parse_args()
    reason = netns_available()
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2
    root = tempfile.mkdtemp(prefix="huddle-bench-")
    tb = Testbed(k=2).start()
    try:
        a, b = tb[0], tb[1]
        raw = sockperf(a, b, args.seconds)
        serve(b, "Server", os.path.join(root, "b"))
        home = os.path.join(root, "a")
        rtt = client(a, "Client", home, "Server", "rtt", count=args.rtt, size=1000)
        tput = client(a, "Client", home, "Server", "throughput", count=args.messages, size=1000, timeout=600)
        conn = client(a, "Client", home, "Server", "connect", count=args.connects)
        mesh_proc = a.spawn(peer_bench_bin(), "mesh", "--sessions", str(args.mesh), label="a:mesh")
        mesh = __import__("json").loads(mesh_proc.wait_line(lambda l: l.startswith("{"), 300))
        print(f"binary: {peer_bench_bin()}")
        print(f"1000-byte round trip p50: Huddle {rtt['p50_us']:.1f} µs, raw TCP {raw['rtt_p50_us']:.1f} µs "
              f"→ {rtt['p50_us'] / raw['rtt_p50_us']:.2f}× (target ≤ 3×)")
        print(f"1000-byte round trip p99: Huddle {rtt['p99_us']:.1f} µs, raw TCP {raw['rtt_p99_us']:.1f} µs "
              f"→ {rtt['p99_us'] / raw['rtt_p99_us']:.2f}×")
        print(f"one-way 1000-byte messages: Huddle {tput['messages_per_s']:,.0f}/s "
              f"({tput['received']}/{tput['sent']} received), raw TCP {raw['messages_per_s']:,.0f}/s "
              f"→ {tput['messages_per_s'] / raw['messages_per_s']:.2f}× (target ≥ 100,000/s)")
        print(f"connect to a pinned peer (TCP + TLS + hello + decision): p50 {conn['p50_ms']:.2f} ms, "
              f"p99 {conn['p99_ms']:.2f} ms over {conn['count']}; first contact with TOFU {conn['first_ms']:.1f} ms "
              f"(target < 20 ms)")
        print(f"mesh of {mesh['sessions']} sessions ({mesh['connections']} connections): {mesh['mesh_ms']:.0f} ms, "
              f"{mesh['kib_per_connected_peer']:.0f} KiB per connected peer (target < 5 s)")
    finally:
        tb.close()
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
