"""Issue 4: a large transfer between test hosts survives repeated cuts.

The connection is cut at random points, alternating "the sending host's link goes down" (its veth is set down
inside its namespace, so nothing tells either side: both notice by silence) and "the sender is SIGKILLed". Each
time the receiver keeps its partial file, a new `huddle send` resumes from it, re-sending less than 1 MiB of what
the receiver already had, and the final file is byte-identical. Files live on tmpfs.

What a link drop does: both sessions report the peer disconnected after `--disconnect-timeout` of silence and the
sender's `sendFile` fails ("failed" event, exit 1). The session would reconnect to a pinned peer by itself once the
link is back, but a failed `sendFile` is not retried: the transfer continues with the next send of the same file,
here a new `huddle send`.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import tempfile
import time

import pytest

from test_huddle_transfer import make_file, sha256, spawn
from testbed import wait_until

pytestmark = pytest.mark.full  # the full run only (scripts/test --full)

SIZE = 256 * 1024 * 1024
MIB = 1 << 20
CUTS = ("link", "kill", "link", "kill")
TIMEOUT = 3  # --disconnect-timeout: seconds of silence before a peer counts as gone


@pytest.fixture
def tmpfs():
    """A fresh directory on tmpfs (/dev/shm) when there is one; removed at the end."""
    root = tempfile.mkdtemp(prefix="huddle-cuts-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def progress(direction: str, at_least: int = 0):
    """Predicate: a progress event of `direction` with completed >= at_least."""
    return lambda e: (e.get("event") == "progress" and e.get("direction") == direction
                      and e["completed"] >= at_least)


@pytest.mark.hosts(2)
def test_transfer_resumes_after_link_drops_and_killed_senders(testbed, huddle, homes, tmpfs):
    """256 MiB, cut four times at random points (link down, SIGKILL, link down, SIGKILL): every resume starts
    within 1 MiB below what the receiver had kept, both sides agree on that offset, and the result is identical."""
    seed = int(os.environ.get("HUDDLE_CUT_SEED", time.time_ns() % 1_000_000))
    rng = random.Random(seed)
    a, b = testbed[0], testbed[1]
    source = os.path.join(tmpfs, "big.bin")
    expected = make_file(source, SIZE)
    inbox = os.path.join(tmpfs, "inbox")
    os.makedirs(inbox)
    timeout = ("--disconnect-timeout", str(TIMEOUT))
    receiver = spawn(b, homes("b"), "receive", "--dir", inbox, "--yes", "--count", "1", "--name", "Bob", "--json",
                     *timeout)
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    cursor = receiver.mark()
    kept = 0
    history = []  # (how, resumed from, cut at, kept)
    for how in CUTS + ("finish",):
        sender = spawn(a, homes("a"), "send", source, "--to", "Bob", "--yes", "--name", "Ada", "--json", *timeout)
        context = f"seed {seed}, history {history}\n{sender.output()}\n{receiver.output()}"
        started = receiver.wait_event(progress("receive"), 60, start=cursor)["startedAt"]
        assert sender.wait_event(progress("send"), 30)["startedAt"] == started, context
        # Re-sent: bytes the receiver already had before this run. Never a gap, less than 1 MiB of overlap.
        assert 0 <= kept - started < MIB, context
        if how == "finish":
            break
        target = started + rng.randrange(8 * MIB, 40 * MIB)
        cut_at = receiver.wait_event(progress("receive", target), 90, start=cursor)["completed"]
        if how == "kill":
            os.kill(sender.pid, signal.SIGKILL)
        else:
            a.run("ip", "link", "set", a.ifname, "down")
        try:
            receiver.wait_event(lambda e: e.get("event") == "failed", TIMEOUT + 15, start=cursor)
            rc = sender.wait_exit(TIMEOUT + 15)
        finally:
            if how == "link":
                a.run("ip", "link", "set", a.ifname, "up")
        if how == "link":
            # A link drop is a clear failure of this send, not a hang.
            assert rc == 1, context
            failures = [e for e in sender.events() if e.get("event") == "failed" and e.get("file") == "big.bin"]
            assert failures, context
            print(f"link down: the sender failed with {failures[0]['error']!r}")
            wait_until(lambda: testbed._link_local(a), 10, what="link-local address back on the sending host")
        cursor = receiver.mark()
        partials = [n for n in os.listdir(inbox) if n.endswith(".huddle-partial")]
        assert len(partials) == 1, (os.listdir(inbox), context)
        kept = os.path.getsize(os.path.join(inbox, partials[0]))
        assert cut_at <= kept < SIZE, (cut_at, kept, context)
        history.append((how, started, cut_at, kept))
    sender.wait_event(lambda e: e.get("event") == "sent" and e.get("file") == "big.bin", 180)
    assert sender.wait_exit(20) == 0, sender.output()
    receiver.wait_event(lambda e: e.get("event") == "received", 20, start=cursor)
    assert receiver.wait_exit(20) == 0, receiver.output()
    assert sorted(os.listdir(inbox)) == ["big.bin"]
    assert sha256(os.path.join(inbox, "big.bin")) == expected, f"seed {seed}, history {history}"
    assert len(history) == len(CUTS)
    print(f"seed {seed}: (cut, resumed from, cut at, kept) {history}")
