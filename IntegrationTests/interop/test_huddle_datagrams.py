"""Issue 3: unreliable messages between test hosts under 5 % packet loss (an nftables `numgen random` drop rule
on the receiving host): some are lost, none is duplicated or corrupted, and the replay window drops nothing
genuine twice.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile

import pytest

from conftest import skip_or_fail
from peer_bench import client, peer_bench_bin, serve
from testbed import missing_tools

COUNT = 4000


@pytest.mark.hosts(2)
def test_unreliable_messages_under_loss_arrive_without_duplicates_or_corruption(testbed, huddle):
    """4000 sealed datagrams through a 5 % random drop (counted): at most the undropped ones arrive, at least
    60 %, each once, intact."""
    if missing_tools(["nft"]):
        skip_or_fail("nft (nftables) not installed")
    if not os.access(peer_bench_bin(), os.X_OK):
        skip_or_fail(f"{peer_bench_bin()} not built")
    a, b = testbed[0], testbed[1]
    root = tempfile.mkdtemp(prefix="huddle-dgram-")
    try:
        table = f"huddle{os.getpid()}"
        b.run("nft", "add", "table", "inet", table)
        b.run("nft", "add", "chain", "inet", table, "input", "{ type filter hook input priority 0 ; }")
        b.run("nft", "add", "rule", "inet", table, "input", "meta", "l4proto", "udp", "udp", "dport", "!=", "5353",
              "numgen", "random", "mod", "100", "<", "5", "counter", "drop")
        serve(b, "Sink", os.path.join(root, "b"))
        result = client(a, "Source", os.path.join(root, "a"), "Sink", "datagrams", count=COUNT, size=600)
        assert result["sent"] == COUNT
        assert result["duplicates"] == 0, result
        assert result["corrupt"] == 0, result
        assert result["authFailures"] == 0, result
        rules = b.run("nft", "list", "table", "inet", table).stdout
        dropped = int(re.search(r"counter packets (\d+) bytes \d+ drop", rules).group(1))
        # The rule dropped about 5 %; a loaded machine may lose more of a burst in socket buffers, never fewer.
        assert 0.02 * COUNT <= dropped <= 0.08 * COUNT, rules
        assert 0.6 * COUNT <= result["unique"] <= COUNT - dropped, (result, dropped)
    finally:
        shutil.rmtree(root, ignore_errors=True)
