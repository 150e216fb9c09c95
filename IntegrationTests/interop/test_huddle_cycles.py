"""Issue 7 (docs/security.md §5 I3): many connect / disconnect cycles and pairings with fresh identities between
test hosts leave the serving process's descriptors and threads where they were, and its memory nearly so."""

from __future__ import annotations

import time

import pytest

from peer_bench import client, serve
from soak import proc_figures

pytestmark = pytest.mark.full  # the full run only (scripts/test --full)

CYCLES = 500
PAIRINGS = 10


def settled(pid: int, baseline: dict, seconds: float = 10) -> dict:
    """pid's figures once its descriptors are back within 2 of the baseline (or after `seconds`)."""
    deadline = time.monotonic() + seconds
    while True:
        now = proc_figures(pid)
        if now["fds"] <= baseline["fds"] + 2 or time.monotonic() > deadline:
            return now
        time.sleep(0.2)


@pytest.mark.hosts(2)
def test_connect_disconnect_cycles_and_pairings_leave_no_descriptors_or_threads_behind(testbed, huddle, homes):
    a, b = testbed[0], testbed[1]
    sink = serve(b, "Sink", homes("b"))
    time.sleep(1)
    baseline = proc_figures(sink.pid)
    result = client(a, "Source", homes("a"), "Sink", "connect", timeout=300, count=CYCLES)
    assert result["count"] == CYCLES, result
    after_cycles = settled(sink.pid, baseline)
    for i in range(PAIRINGS):
        paired = client(a, f"Stranger{i}", homes(f"s{i}"), "Sink", "rtt", timeout=60, count=1)
        assert paired["count"] == 1, paired
    after_pairings = settled(sink.pid, baseline)
    print(f"serve: baseline {baseline}; after {CYCLES} connect/disconnect cycles (p50 {result['p50_ms']:.1f} ms) "
          f"{after_cycles}; after {PAIRINGS} pairings with fresh identities {after_pairings}")
    for after in (after_cycles, after_pairings):
        assert after["fds"] <= baseline["fds"] + 2, (baseline, after)
        assert after["threads"] <= baseline["threads"] + 2, (baseline, after)
        assert after["rss_mib"] - baseline["rss_mib"] < 16, (baseline, after)
