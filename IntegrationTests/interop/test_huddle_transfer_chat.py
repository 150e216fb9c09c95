"""Issue 4: chat messages sent during a 1 GiB transfer arrive quickly.

`huddle-peer-bench client --mode chat` sends a 1 GiB file (tmpfs) to `serve --dir` on the other test host and, once
64 MiB are on their way, 20 chat messages over the same connection, 100 ms apart, each stamped with the
monotonic clock the two namespaces share. `serve` prints each message's one-way latency and how far the file had
come when it arrived.

The issue asks for 50 ms each. This suite runs debug builds on a loaded 2-core machine, so it asserts that at
least 18 of the 20 arrive within 50 ms and every one within LATENCY_BOUND_MS (150 ms); the release figures are in
BENCHMARKS.md ("Transfers"), measured by bench_transfer.py.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from conftest import skip_or_fail
from peer_bench import common, peer_bench_bin
from test_huddle_transfer import make_file, sha256

pytestmark = pytest.mark.full  # the full run only (scripts/test --full)

MESSAGES = 20
TARGET_MS = 50
LATENCY_BOUND_MS = float(os.environ.get("HUDDLE_CHAT_BOUND_MS", 150))


@pytest.fixture
def tmpfs():
    """A fresh directory on tmpfs (/dev/shm) when there is one; removed at the end."""
    root = tempfile.mkdtemp(prefix="huddle-chat-gib-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.hosts(2)
def test_chat_during_a_gibibyte_transfer_arrives_within_bound(testbed, huddle, homes, tmpfs):
    """Every one of 20 messages arrives, in order, while the file is still coming, each within the bound; the
    file then arrives byte-identical."""
    if not os.access(peer_bench_bin(), os.X_OK):
        skip_or_fail(f"{peer_bench_bin()} not built")
    a, b = testbed[0], testbed[1]
    source = os.path.join(tmpfs, "gib.bin")
    expected = make_file(source, 1 << 30)
    inbox = os.path.join(tmpfs, "inbox")
    os.makedirs(inbox)
    server = b.spawn(peer_bench_bin(), "serve", *common(b, "Server", homes("b")), "--dir", inbox,
                     label="b:serve")
    server.wait_line(lambda l: '"ready"' in l, 20)
    client = a.spawn(peer_bench_bin(), "client", *common(a, "Client", homes("a")), "--to", "Server", "--mode",
                     "chat", "--file", source, "--count", str(MESSAGES), "--size", "100", "--interval", "100",
                     "--after", str(64 << 20), label="a:client chat")
    client.wait_line(lambda l: '"mode"' in l, 300)
    assert client.wait_exit(20) == 0, client.output()
    server.wait_event(lambda e: e.get("event") == "received", 20)
    chats = [e for e in server.events() if e.get("event") == "chat"]
    context = f"{chats}\n{client.output()}\n{server.output()}"
    assert [e.get("seq") for e in chats] == list(range(MESSAGES)), context
    # Each arrived while the file was still being received: the transfer was competing for the connection.
    assert all(0 < e.get("completed", 0) < e.get("total", 0) for e in chats), context
    latencies = sorted(e["latency_ms"] for e in chats)
    print(f"chat during 1 GiB transfer, latencies (ms): {[round(x, 1) for x in latencies]}")
    assert sum(1 for x in latencies if x < TARGET_MS) >= MESSAGES - 2, context
    assert latencies[-1] < LATENCY_BOUND_MS, context
    assert os.listdir(inbox) == ["gib.bin"]
    assert sha256(os.path.join(inbox, "gib.bin")) == expected
