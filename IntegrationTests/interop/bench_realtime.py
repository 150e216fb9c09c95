#!/usr/bin/env python3
"""The real-time layer beside its floors, between two test hosts in one run (not collected by pytest; issue 39).

  python3 IntegrationTests/interop/bench_realtime.py [--bench .build/release/huddle-peer-bench] [--rounds 5]
      [--count 5000] [--size 64] [--rate 200000]

Host a measures, host b serves; each round runs every measurement once, in an order that alternates by round:
  udp-echo:       huddle-peer-bench udp-echo (a bare NIO UDP echo, one datagram awaited at a time)
  enet:           IntegrationTests/interop/peers/enet_echo.c on Debian's libenet (one unreliable packet at a time)
  ping:           huddle-peer-bench client --mode ping: PeerSession.ping, a sealed PING datagram and its PONG
  tls-echo:       huddle-peer-bench tls-echo (a bare NIO echo over mutual TLS 1.3, 1000 bytes)
  rtt:            client --mode rtt: a 1000-byte reliable message and the app's echo (the default mode)
  reliable-ping:  client --mode reliable-ping: a PING message on the TLS stream, answered by the session
  datagram-rate:  client --mode datagram-rate: unreliable messages one way as fast as they are sealed
Prints each round, the medians and the ratios against the issue's targets (BENCHMARKS.md, "Real-time").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from testbed import Testbed, netns_available  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def last_record(proc, timeout: float) -> dict:
    line = proc.wait_line(lambda l: l.startswith("{") and '"mode"' in l, timeout)
    proc.wait_exit(10)
    return json.loads(line)


def echo(server_argv: list[str], client_argv, b, a, label: str, timeout: float = 300) -> dict:
    """Starts a floor's server on b, measures from a with `client_argv(port)`."""
    server = b.spawn(*server_argv, label=f"b:{label}")
    try:
        port = json.loads(server.wait_line(lambda l: '"ready"' in l, 20))["port"]
        return last_record(a.spawn(*client_argv(port), label=f"a:{label}"), timeout)
    finally:
        server.stop()


def common(host, name: str, home: str) -> list[str]:
    return ["--name", name, "--data-dir", home, "--interface", host.ifname, "--host", f"rt-{host.letter}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", default=os.path.join(HERE, "..", "..", ".build", "release", "huddle-peer-bench"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--count", type=int, default=5000, help="round trips per measurement")
    parser.add_argument("--size", type=int, default=64, help="bytes of each datagram round trip")
    parser.add_argument("--rate", type=int, default=200_000, help="datagrams in each one-way rate run")
    args = parser.parse_args()
    reason = netns_available()
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2
    root = tempfile.mkdtemp(prefix="huddle-realtime-")
    enet = os.path.join(root, "enet_echo")
    built = subprocess.run(["cc", "-O2", "-o", enet, os.path.join(HERE, "peers", "enet_echo.c"), "-lenet"],
                           capture_output=True, text=True)
    if built.returncode != 0:
        print(f"ENet left out: could not build enet_echo (apt install libenet-dev): {built.stderr.strip()}")
        enet = None
    bench, count, size = os.path.abspath(args.bench), str(args.count), str(args.size)
    tb = Testbed(k=2).start()
    rounds: list[dict] = []
    try:
        a, b = tb[0], tb[1]
        for number in range(args.rounds):
            figures: dict[str, dict] = {}
            floors = [
                ("udp-echo", lambda: echo([bench, "udp-echo", "--port", "0", "--bind", b.ipv4],
                                          lambda p: [bench, "udp-echo", "--to", f"{b.ipv4}:{p}", "--count", count,
                                                     "--size", size], b, a, "udp-echo")),
                ("tls-echo", lambda: echo([bench, "tls-echo", "--data-dir", os.path.join(root, "tls-b"), "--port",
                                           "0", "--bind", b.ipv4],
                                          lambda p: [bench, "tls-echo", "--data-dir", os.path.join(root, "tls-a"),
                                                     "--to", f"{b.ipv4}:{p}", "--count", count, "--size", "1000"],
                                          b, a, "tls-echo")),
            ]
            if enet:
                floors.append(("enet", lambda: echo([enet, "serve", "47901"],
                                                    lambda p: [enet, "ping", b.ipv4, str(p), count, size],
                                                    b, a, "enet")))
            for tag, run in (floors if number % 2 == 0 else list(reversed(floors))):
                figures[tag] = run()
            server = b.spawn(bench, "serve", *common(b, "Server", os.path.join(root, f"serve{number}")),
                             label="b:serve")
            try:
                server.wait_line(lambda l: '"ready"' in l, 20)
                home = os.path.join(root, f"client{number}")
                modes = [("ping", size, count), ("rtt", "1000", count), ("reliable-ping", size, count),
                         ("datagram-rate", size, str(args.rate))]
                if number % 2:
                    modes.reverse()
                for mode, bytes_, n in modes:
                    proc = a.spawn(bench, "client", *common(a, "Client", home), "--to", "Server", "--mode", mode,
                                   "--count", n, "--size", bytes_, label=f"a:{mode}")
                    figures[mode] = last_record(proc, 600)
            finally:
                server.stop()
            rounds.append(figures)
            print(f"round {number + 1}: " + json.dumps(figures, sort_keys=True), flush=True)
    finally:
        tb.close()
        shutil.rmtree(root, ignore_errors=True)

    def median(tag: str, key: str = "p50_us") -> float:
        return statistics.median(r[tag][key] for r in rounds if tag in r)

    ping, udp = median("ping"), median("udp-echo")
    print(f"{args.size}-byte datagram round trip p50 (median of {args.rounds}): Huddle PING {ping:.1f} µs, "
          f"bare NIO UDP echo {udp:.1f} µs → {ping / udp:.2f}× (target ≤ 1.2×)")
    if enet:
        en = median("enet")
        print(f"  ENet {en:.1f} µs → Huddle / ENet {ping / en:.2f}× (target ≤ 1.0×)")
    print(f"  p99: Huddle {median('ping', 'p99_us'):.1f} µs, NIO {median('udp-echo', 'p99_us'):.1f} µs"
          + (f", ENet {median('enet', 'p99_us'):.1f} µs" if enet else ""))
    rtt, tls, rping = median("rtt"), median("tls-echo"), median("reliable-ping")
    print(f"1000-byte reliable round trip p50: Huddle {rtt:.1f} µs, bare TLS echo {tls:.1f} µs → "
          f"{rtt / tls:.2f}× (target ≤ 1.3×); a {args.size}-byte PING on the TLS stream {rping:.1f} µs")
    sent, got = median("datagram-rate", "sent_per_s"), median("datagram-rate", "received_per_s")
    unique = median("datagram-rate", "unique")
    print(f"{args.size}-byte datagrams one way: sealed and sent {sent:,.0f}/s, received {got:,.0f}/s "
          f"({unique:,.0f} of {args.rate:,} arrived; target ≥ 100,000/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
