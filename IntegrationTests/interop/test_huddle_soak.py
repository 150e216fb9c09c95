"""Issue 7: a short soak in the test command — 8 peers chat, send files and sync a clipboard for 75 s while peers
join and leave (soak.py; `scripts/soak` runs it for 30 minutes)."""

from __future__ import annotations

import os

import pytest

from conftest import skip_or_fail
from soak import Soak, print_summary
from xdisplay import XDisplay

pytestmark = pytest.mark.full  # the full run only (scripts/test --full)

SECONDS = float(os.environ.get("HUDDLE_SOAK_SECONDS", "75"))


@pytest.mark.hosts(8)
def test_eight_peers_churning_lose_nothing_and_do_not_grow(testbed, huddle, homes):
    """Nothing lost, duplicated or reordered; every file and copy arrives; the long-lived processes' memory,
    descriptors and threads stay within bounds of their warm-up values."""
    displays = []
    try:
        for _ in range(3):
            try:
                displays.append(XDisplay())
            except RuntimeError as e:
                skip_or_fail(str(e))
        seed = int.from_bytes(os.urandom(3), "big")
        print(f"soak seed {seed}")
        report = Soak(testbed, homes("soak"), displays, SECONDS, seed).run()
    finally:
        for display in displays:
            display.stop()
    print_summary(report)
    assert not report["order_errors"], report["order_errors"]
    assert not report["missing_at_anchor"], report
    assert report["must_reach_anchor"] >= 50, report
    assert report["files_ok"] >= 5 and not report["files_failed"] and not report["files_wrong"], report
    assert report["clips"]["ok"] >= 5 and report["clips"]["failed"] == 0, report["clips"]
    assert report["churn"] >= 5, report
    assert all(report["alive"].values()), report["alive"]
    assert set(report["growth"]) == {"Anchor", "Inbox", "ClipA", "ClipB"}, report["growth"]
    assert not report["over_limits"], report["growth"]
    assert report["ok"]
