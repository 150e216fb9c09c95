"""Issue 7, docs/security.md §5 C2: a connect flood of 1,000 connections a second for 30 s against `huddle
receive`. The target stays alive, its descriptors stay within its admission limits plus a constant and return to
the baseline, its memory grows by less than 50 MiB, and a legitimate sender's file arrives identical during the
flood.

Hosts: a (Ada, legitimate sender), b (Bob, the target), c (the attacker, IntegrationTests/interop/attacker.py --churn).
"""

from __future__ import annotations

import json
import os
import sys
import time

import pytest

from test_huddle_hostile import descriptors, rss_mib
from test_huddle_transfer import make_file, sha256, spawn

pytestmark = pytest.mark.full  # the full run only (scripts/test --full)

FLOOD_SECONDS = 30
PER_SECOND = 1000


@pytest.mark.hosts(3)
def test_a_file_arrives_through_a_connect_flood_of_1000_a_second_for_30_seconds(testbed, huddle, homes):
    a, b, c = testbed[0], testbed[1], testbed[2]
    inbox = homes("inbox")
    bob = spawn(b, homes("b"), "receive", "--dir", inbox, "--yes", "--name", "Bob", "--port", "7000", "--json")
    bob.wait_line(lambda l: l.startswith("Receiving into"), 15)
    pid = bob.proc.pid
    time.sleep(1)
    base_fds, base_rss = descriptors(pid), rss_mib(pid)
    source = os.path.join(homes("files"), "flood.bin")
    expected = make_file(source, 8 << 20)
    attacker = c.spawn(sys.executable, os.path.join(os.path.dirname(__file__), "attacker.py"),
                       "--target", b.ipv4, "--tcp", "7000", "--seconds", str(FLOOD_SECONDS), "--churn",
                       str(PER_SECOND), "--idle", "0", "--drip", "0", "--garbage", "0", "--datagrams", "0",
                       label="c:attacker")
    peak_fds = descriptors(pid)
    time.sleep(10)  # a third of the way in
    ada = spawn(a, homes("a"), "send", source, "--to", "Bob", "--yes", "--name", "Ada", "--json")
    while ada.proc.poll() is None and time.monotonic() - ada.started < 60:
        peak_fds = max(peak_fds, descriptors(pid))
        time.sleep(0.1)
    assert ada.wait_exit(5) == 0, ada.output()
    assert sha256(os.path.join(inbox, "flood.bin")) == expected
    while attacker.proc.poll() is None:
        peak_fds = max(peak_fds, descriptors(pid))
        time.sleep(0.1)
    done = attacker.wait_event(lambda e: e.get("event") == "done", 30)
    assert bob.proc.poll() is None, bob.output()
    deadline = time.monotonic() + 30
    while descriptors(pid) > base_fds + 4 and time.monotonic() < deadline:
        time.sleep(0.5)
    after_fds, after_rss = descriptors(pid), rss_mib(pid)
    rate = done["churn_opened"] / done["seconds"]
    print(f"connect flood: {done['churn_opened']} connections in {done['seconds']} s ({rate:.0f}/s), "
          f"{done['churn_established']} established; target fds: baseline {base_fds}, peak {peak_fds}, after "
          f"{after_fds}; RSS MiB: baseline {base_rss:.1f}, after {after_rss:.1f}; attacker: {json.dumps(done)}")
    # The flood was what it says: about 1,000 a second for the whole time, and the kernel connected most.
    assert done["seconds"] >= FLOOD_SECONDS and rate >= 0.9 * PER_SECOND, done
    assert done["churn_established"] >= 0.5 * done["churn_opened"], done
    # Held at any moment: the 16 admitted connections, plus those accepted and refused whose close is still
    # queued on a busy event loop (peaks of 16-56 above the baseline on a loaded two-core machine). A leak
    # would hold thousands.
    assert peak_fds <= base_fds + 150, (base_fds, peak_fds)
    assert after_fds <= base_fds + 4, (base_fds, after_fds)
    assert after_rss - base_rss < 50, (base_rss, after_rss)
