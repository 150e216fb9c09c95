#!/usr/bin/env python3
"""Round trip and message rate, before and after a change, beside their floor (not collected by pytest).

  python3 IntegrationTests/interop/bench_round_trip.py --new .build/release/huddle-peer-bench \\
      --baseline /tmp/base/.build/release/huddle-peer-bench [--rounds 3] [--rtt 5000] [--messages 200000] \\
      [--new-serve-arg=--on-event-loop]

Two test hosts a (client) and b (server), one run, side by side, each round in alternating order:
  floor:     huddle-peer-bench tls-echo (a bare NIO handler echoing over mutual TLS 1.3, same keys and settings)
  new:       huddle-peer-bench client --mode rtt | throughput against `serve` (the PeerSession API end to end)
  baseline:  the same with the baseline binary
Prints every figure, the medians over the rounds, and the ratios new / floor, baseline / floor, new / baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from testbed import Testbed, netns_available  # noqa: E402


def common(host, name: str, home: str) -> list[str]:
    return ["--name", name, "--data-dir", home, "--interface", host.ifname, "--host", f"pb-{host.letter}"]


def session_figures(binary: str, a, b, root: str, tag: str, rtt: int, messages: int,
                    serve_args: list[str]) -> dict:
    """The session's 1000-byte round trip and one-way message rate with `binary` on both hosts."""
    server = b.spawn(binary, "serve", *common(b, "Server", os.path.join(root, tag, "b")), *serve_args,
                     label=f"b:serve {tag}")
    try:
        server.wait_line(lambda l: '"ready"' in l, 20)
        home = os.path.join(root, tag, "a")
        results = {}
        for mode, count, timeout in (("rtt", rtt, 300), ("throughput", messages, 600)):
            proc = a.spawn(binary, "client", *common(a, "Client", home), "--to", "Server", "--mode", mode,
                           "--count", str(count), "--size", "1000", label=f"a:client {mode} {tag}")
            line = proc.wait_line(lambda l: l.startswith("{") and '"mode"' in l, timeout)
            proc.wait_exit(10)
            results[mode] = json.loads(line)
        return {"rtt_p50_us": results["rtt"]["p50_us"], "rtt_p99_us": results["rtt"]["p99_us"],
                "messages_per_s": results["throughput"]["messages_per_s"],
                "received": results["throughput"]["received"]}
    finally:
        server.stop()


def echo_figures(binary: str, a, b, root: str, rtt: int) -> dict:
    """The floor: a bare TLS 1.3 echo between the same hosts."""
    server = b.spawn(binary, "tls-echo", "--data-dir", os.path.join(root, "echo", "b"), "--port", "0",
                     "--bind", b.ipv4, label="b:tls-echo")
    try:
        port = json.loads(server.wait_line(lambda l: '"ready"' in l, 20))["port"]
        proc = a.spawn(binary, "tls-echo", "--data-dir", os.path.join(root, "echo", "a"), "--to",
                       f"{b.ipv4}:{port}", "--count", str(rtt), "--size", "1000", label="a:tls-echo")
        line = proc.wait_line(lambda l: l.startswith("{") and '"mode"' in l, 300)
        proc.wait_exit(10)
        result = json.loads(line)
        return {"rtt_p50_us": result["p50_us"], "rtt_p99_us": result["p99_us"]}
    finally:
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--new", required=True, help="huddle-peer-bench built from the code to measure")
    parser.add_argument("--baseline", required=True, help="huddle-peer-bench built from the code to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rtt", type=int, default=5000, help="round trips measured per run")
    parser.add_argument("--messages", type=int, default=200_000, help="messages in each throughput run")
    parser.add_argument("--new-serve-arg", action="append", default=[],
                        help="an argument for the new binary's `serve` only (repeatable), e.g. --on-event-loop; "
                             "--baseline may then name the same binary")
    parser.add_argument("--baseline-serve-arg", action="append", default=[],
                        help="an argument for the baseline binary's `serve` only (repeatable)")
    args = parser.parse_args()
    reason = netns_available()
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2
    root = tempfile.mkdtemp(prefix="huddle-rtt-")
    tb = Testbed(k=2).start()
    rounds: list[dict] = []
    try:
        a, b = tb[0], tb[1]
        for number in range(args.rounds):
            figures = {"echo": echo_figures(args.new, a, b, root, args.rtt)}
            order = [("new", args.new, args.new_serve_arg), ("baseline", args.baseline, args.baseline_serve_arg)]
            if number % 2:
                order.reverse()
            for tag, binary, serve_args in order:
                figures[tag] = session_figures(binary, a, b, root, f"{tag}{number}", args.rtt, args.messages,
                                               serve_args)
            rounds.append(figures)
            print(f"round {number + 1}: " + json.dumps(figures, sort_keys=True), flush=True)
    finally:
        tb.close()
        shutil.rmtree(root, ignore_errors=True)

    def median(tag: str, key: str) -> float:
        return statistics.median(r[tag][key] for r in rounds)

    echo, new, base = median("echo", "rtt_p50_us"), median("new", "rtt_p50_us"), median("baseline", "rtt_p50_us")
    print(f"1000-byte round trip p50 (median of {args.rounds}): new {new:.1f} µs, baseline {base:.1f} µs, "
          f"TLS echo floor {echo:.1f} µs")
    print(f"  new / floor {new / echo:.2f}× (target ≤ 1.3×), baseline / floor {base / echo:.2f}×, "
          f"new / baseline {new / base:.3f}")
    p99n, p99b = median("new", "rtt_p99_us"), median("baseline", "rtt_p99_us")
    print(f"1000-byte round trip p99: new {p99n:.1f} µs, baseline {p99b:.1f} µs, "
          f"floor {median('echo', 'rtt_p99_us'):.1f} µs")
    rate_n, rate_b = median("new", "messages_per_s"), median("baseline", "messages_per_s")
    print(f"one-way 1000-byte messages: new {rate_n:,.0f}/s, baseline {rate_b:,.0f}/s → new / baseline "
          f"{rate_n / rate_b:.3f} (target ≥ 0.95)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
