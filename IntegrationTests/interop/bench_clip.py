#!/usr/bin/env python3
"""Clipboard sync latency on the namespace test bed (not collected by pytest).

  swift build -c release --product huddle
  HUDDLE_BIN=.build/release/huddle python3 IntegrationTests/interop/bench_clip.py [--text-rounds 40] [--image-rounds 12]

Each test host has its own Xvfb. An `xclip` copy on host a starts the clock; it stops when the item is readable
on the other hosts' X clipboards, as seen by an event-driven reader there (`huddle pb watch --json`, which reads
the data as soon as the owner changes). Measured for a short text and a 1 MiB PNG, between two hosts and among
three (the time until both others have it), with `huddle clip sync` and with the seed's approach: poll the
clipboard once a second and send changes over TCP (poll_relay.py). Prints medians, p99 and ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from huddle_cli import huddle_bin  # noqa: E402
from test_huddle_clip import clip, png  # noqa: E402
from testbed import LineProc, Testbed, netns_available  # noqa: E402
from xdisplay import XDisplay  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def watcher(display: XDisplay) -> LineProc:
    """An event-driven reader of a display's clipboard."""
    return LineProc([huddle_bin(), "pb", "watch", "--json"], f"watch {display.display}", env=display.env())


def arrival(watch: LineProc, start: int, size: int) -> float:
    """When the first change after `start` carrying at least `size` bytes was read."""
    def match(line: str) -> bool:
        try:
            event = json.loads(line)
        except ValueError:
            return False
        return not event.get("empty") and event.get("bytes", 0) >= size
    return watch.wait_line_at(match, 30, start=start)[0]


def rounds(source: XDisplay, watches: list[LineProc], payloads: list[bytes], mime: str,
           jitter: float = 0) -> list[float]:
    """Copies each payload on `source`; the time until every watcher has read it. `jitter` spreads the copies
    over a polling period, so a poller's phase does not bias the result."""
    latencies = []
    for payload in payloads:
        marks = [len(w.lines) for w in watches]
        start = time.monotonic()
        source.copy(payload, mime, confirm=False)
        latencies.append(max(arrival(w, m, len(payload)) for w, m in zip(watches, marks)) - start)
        time.sleep(0.25 + random.uniform(0, jitter))
    return latencies


def summary(name: str, latencies: list[float]) -> tuple[float, float]:
    ordered = sorted(latencies)
    median = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    print(f"  {name:<44} median {median * 1000:8.1f} ms   p99 {p99 * 1000:8.1f} ms   (n={len(ordered)})")
    return median, p99


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--text-rounds", type=int, default=40)
    parser.add_argument("--image-rounds", type=int, default=12)
    parser.add_argument("--poll-rounds", type=int, default=12)
    args = parser.parse_args()
    random.seed(1)
    reason = netns_available()
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2
    texts = [f"short text {i:03d} for the clipboard".encode() for i in range(args.text_rounds)]
    print("making images…", file=sys.stderr)
    images = [png(600, 600, seed=100 + i) for i in range(args.image_rounds)]
    root = tempfile.mkdtemp(prefix="huddle-bench-clip-")
    tb = Testbed(k=3).start()
    displays = [XDisplay() for _ in range(3)]
    watches: list = []
    results = {}
    try:
        print(f"huddle: {huddle_bin()}; image {len(images[0]) / 1048576:.2f} MiB")
        names = ["Ada", "Bob", "Cy"]
        syncs = [clip(tb[i], os.path.join(root, names[i]), displays[i], names[i], "sync", "--trust-on-first-use",
                      "--quiet") for i in range(2)]
        # No reader on host a: xclip serves one INCR transfer at a time and stalls the others, so a second
        # reader there would hold up the sync's own read of the image.
        watches = [None] + [watcher(d) for d in displays[1:]]
        time.sleep(3)
        print("huddle clip sync, two hosts:")
        results["text2"] = summary("text (≈ 35 B)", rounds(displays[0], watches[1:2], texts, "text/plain"))
        results["png2"] = summary("PNG (1 MiB)", rounds(displays[0], watches[1:2], images, "image/png"))
        syncs.append(clip(tb[2], os.path.join(root, "Cy"), displays[2], "Cy", "sync", "--trust-on-first-use",
                          "--quiet"))
        time.sleep(4)
        print("huddle clip sync, three hosts (until both others have it):")
        results["text3"] = summary("text (≈ 35 B)", rounds(displays[0], watches[1:3], texts, "text/plain"))
        results["png3"] = summary("PNG (1 MiB)", rounds(displays[0], watches[1:3], images, "image/png"))
        for proc in syncs:
            proc.stop()
        print("seed approach: poll once a second, send over TCP, copy with xclip (two hosts):")
        a, b = tb[0], tb[1]
        relay_in = b.spawn("python3", os.path.join(HERE, "poll_relay.py"), "receive", b.ipv4, "12345",
                           label="b:poll", env=displays[1].env())
        time.sleep(0.5)
        relay_out = a.spawn("python3", os.path.join(HERE, "poll_relay.py"), "send", b.ipv4, "12345",
                            label="a:poll", env=displays[0].env())
        time.sleep(1.5)
        results["text_poll"] = summary("text (≈ 35 B)",
                                       rounds(displays[0], watches[1:2], texts[: args.poll_rounds], "text/plain", 1))
        results["png_poll"] = summary("PNG (1 MiB)",
                                      rounds(displays[0], watches[1:2], images[: args.poll_rounds], "image/png", 1))
        relay_out.stop()
        relay_in.stop()
        print("ratios (seed polling / huddle, medians, two hosts):")
        print(f"  text {results['text_poll'][0] / results['text2'][0]:.1f}×   "
              f"PNG {results['png_poll'][0] / results['png2'][0]:.1f}×")
        print(f"target: text between two hosts under 50 ms median: "
              f"{'met' if results['text2'][0] < 0.050 else 'NOT met'} ({results['text2'][0] * 1000:.1f} ms)")
    finally:
        for watch in watches:
            if watch is not None:
                watch.stop()
        tb.close()
        for display in displays:
            display.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
