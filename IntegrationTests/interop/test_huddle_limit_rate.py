"""Issue 38: `--limit-rate` holds a transfer to its rate between test hosts — on the receiving side (the receiver
stops reading, TCP holds the sender back) and on the sending side — and the file still arrives byte-identical.
A limit is a lower bound on the time taken, whatever the machine: only that is asserted."""

from __future__ import annotations

import os
import time

from huddle_cli import huddle_bin
from test_huddle_localsend import BED
from test_huddle_transfer import make_file, sha256, spawn

import pytest

SIZE = 1536 * 1024
RATE = 256 * 1024
# The pacer lets a quarter second of bytes go early and the first chunk is paid for after it goes; a receiver
# stops reading only after the read that brought a chunk too soon. From its first wait on it reads one read
# (at most 64 KiB, NIO's largest receive buffer) at a time (ReceiveFlow sets maxMessagesPerRead to 1), so at most
# one read comes early; what an earlier read cycle took early is charged and waited for. Without a limit the
# file takes well under a second here.
ONE_READ = 64 * 1024
FLOOR = (SIZE - RATE // 4 - 61_440 - ONE_READ) / RATE


@pytest.mark.hosts(2)
@pytest.mark.parametrize("side", ["receive", "send"])
def test_a_limited_transfer_takes_at_least_its_rate_and_arrives_whole(testbed, huddle, homes, side):
    a, b = testbed[0], testbed[1]
    source = os.path.join(homes("files"), "limited.bin")
    expected = make_file(source, SIZE)
    inbox = homes("inbox")
    limit = ["--limit-rate", "256K"]
    receiver = spawn(b, homes("b"), "receive", "--dir", inbox, "--yes", "--count", "1", "--name", "Bob",
                     *(limit if side == "receive" else []))
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    begun = time.monotonic()
    sender = spawn(a, homes("a"), "send", source, "--to", "Bob", "--yes", "--name", "Ada",
                   *(limit if side == "send" else []))
    sender.wait_line(lambda l: l == "sent limited.bin: verified by the receiver", 60)
    taken = time.monotonic() - begun
    assert sender.wait_exit(20) == 0, sender.output()
    receiver.wait_line(lambda l: l.startswith("received "), 10)
    assert receiver.wait_exit(20) == 0, receiver.output()
    assert sha256(os.path.join(inbox, "limited.bin")) == expected
    # Finding Bob and the offer only add to it: at best the whole file at 256 KiB/s, less what may go early.
    assert taken >= FLOOR, f"{side} limit: {SIZE} bytes in {taken:.2f} s, faster than {RATE} bytes a second"


@pytest.mark.hosts(2)
def test_a_rate_that_is_not_one_is_refused_before_anything_starts(testbed, huddle, homes):
    a = testbed[0]
    run = spawn(a, homes("a"), "receive", "--dir", homes("inbox"), "--limit-rate", "fast", "--yes")
    assert run.wait_exit(20) == 64, run.output()
    assert "--limit-rate takes bytes a second: 500K, 2M" in run.output(), run.output()


# LocalSend's sender paces each 256 KiB chunk before it goes, so the last may go a chunk and a quarter second early;
# its receiver paces each read of the request body after it came.
LOCALSEND_FLOOR = (SIZE - RATE // 4 - 256 * 1024 - ONE_READ) / RATE


@BED
@pytest.mark.parametrize("side", ["receive", "send"])
def test_a_limited_localsend_transfer_with_localsendd_takes_at_least_its_rate(testbed, localsendd, homes, side):
    """The same limit on LocalSend's transfers, against localsendd (an independent LocalSend): `huddle send
    --limit-rate` to it, and `huddle receive --limit-rate` from it; the file arrives whole either way."""
    a, b = testbed.hosts
    peer = localsendd(b, "ld-b")
    source = os.path.join(homes("files"), "limited.bin")
    expected = make_file(source, SIZE)
    if side == "send":
        begun = time.monotonic()
        sender = spawn(a, homes("a"), "send", source, "--to", "ld-b", "--name", "Ada", "--wait", "20",
                       "--limit-rate", "256K")
        assert sender.wait_exit(60) == 0, sender.output()
        taken = time.monotonic() - begun
        assert sha256(peer.wait_file("limited.bin", timeout=10, size=SIZE)) == expected
    else:
        inbox = homes("inbox")
        receiver = spawn(a, homes("a"), "receive", "--dir", inbox, "--yes", "--count", "1", "--name", "Ada",
                         "--limit-rate", "256K")
        receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
        peer.wait_device("Ada", timeout=15)
        begun = time.monotonic()
        result = peer.send(source, "Ada", timeout=60)
        taken = time.monotonic() - begun
        assert result.ok, result
        assert receiver.wait_exit(20) == 0, receiver.output()
        assert sha256(os.path.join(inbox, "limited.bin")) == expected
    assert taken >= LOCALSEND_FLOOR, f"{side} limit: {SIZE} bytes in {taken:.2f} s, faster than {RATE} bytes a second"


@BED
def test_one_limit_holds_huddle_and_localsend_sends_together(testbed, localsendd, homes):
    """One `--limit-rate` for everything a command moves: `huddle send` to a Huddle receiver and to localsendd at
    once shares the 256K between them, so the two files take at least twice as long as one (each alone would be
    done in about half that)."""
    a, b = testbed.hosts
    peer = localsendd(b, "ld-b")
    source = os.path.join(homes("files"), "limited.bin")
    expected = make_file(source, SIZE)
    inbox = homes("inbox")
    receiver = spawn(b, homes("b"), "receive", "--dir", inbox, "--yes", "--count", "1", "--name", "Bob",
                     "--no-localsend", "--no-kdeconnect")
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    begun = time.monotonic()
    sender = spawn(a, homes("a"), "send", source, "--to", "Bob", "--to", "ld-b", "--yes", "--name", "Ada",
                   "--wait", "20", "--limit-rate", "256K")
    assert sender.wait_exit(90) == 0, sender.output()
    taken = time.monotonic() - begun
    assert receiver.wait_exit(20) == 0, receiver.output()
    assert sha256(os.path.join(inbox, "limited.bin")) == expected
    assert sha256(peer.wait_file("limited.bin", timeout=10, size=SIZE)) == expected
    # Both files through one limit: what each may send early (a quarter second of the rate between them, a Huddle
    # chunk, a LocalSend chunk) is all that may go faster than 256 KiB/s.
    floor = (2 * SIZE - RATE // 4 - 61_440 - 256 * 1024) / RATE
    assert taken >= floor, f"{2 * SIZE} bytes to two devices in {taken:.2f} s, faster than {RATE} bytes a second"


@BED
def test_a_limited_kdeconnect_transfer_with_kdeconnectd_takes_at_least_its_rate_both_ways(testbed, kdeconnect, homes):
    """The same limit on KDE Connect's transfers, against Debian's kdeconnectd: a file kc-b shares with
    `huddle receive --limit-rate` (paired by its --yes), then `huddle send --limit-rate` to kc-b; whole either way."""
    from test_huddle_kdeconnect import pair, spawn as kde_spawn

    a, b = testbed.hosts
    kc = kdeconnect(b, "kc-b")
    home, inbox = homes("a"), homes("inbox")
    incoming = os.path.join(homes("kc-files"), "from-kde.bin")
    expected_in = make_file(incoming, SIZE)
    receiver = kde_spawn(a, home, "receive", "--dir", inbox, "--yes", "--json", "--count", "1", "--name", "Ada",
                         "--limit-rate", "256K")
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    ada = pair(kc, receiver)
    begun = time.monotonic()
    kc.share_file(incoming, ada)
    got = receiver.wait_event(lambda e: e.get("event") == "received", 60)
    taken = time.monotonic() - begun
    assert sha256(got["path"]) == expected_in
    assert receiver.wait_exit(15) == 0, receiver.output()
    assert taken >= LOCALSEND_FLOOR, f"receive limit: {SIZE} bytes in {taken:.2f} s, faster than {RATE} bytes a second"

    outgoing = os.path.join(homes("files"), "to-kde.bin")
    expected_out = make_file(outgoing, SIZE)
    begun = time.monotonic()
    sender = kde_spawn(a, home, "send", outgoing, "--to", "kc-b", "--name", "Ada", "--limit-rate", "256K")
    arrived = kc.wait_file("to-kde.bin", timeout=60, size=SIZE)
    assert sender.wait_exit(30) == 0, sender.output()
    taken = time.monotonic() - begun
    assert sha256(arrived) == expected_out
    assert taken >= LOCALSEND_FLOOR, f"send limit: {SIZE} bytes in {taken:.2f} s, faster than {RATE} bytes a second"


@pytest.mark.hosts(2, ifname="eth0", default_route=True)
def test_a_daemon_holds_one_localsend_device_to_its_own_limit(testbed, localsendd, homes):
    """`limit-rate` under `[devices."FINGERPRINT"]` in the daemon's config.toml limits that LocalSend device alone:
    `huddle send F --to ld-b` through the daemon (no limit for all) takes at least the file at 256K."""
    from test_huddle_daemon import User

    peer = localsendd(testbed[1], "ld-b")
    ada = User(testbed[0], homes, "DaAda")
    config = os.path.join(ada.home, ".config", "huddle")
    os.makedirs(config, exist_ok=True)
    with open(os.path.join(config, "config.toml"), "w") as f:
        f.write(f'[devices."{peer.fingerprint.lower()}"]\nlimit-rate = "256K"\n')
    daemon = ada.daemon()
    source = os.path.join(homes("files"), "limited.bin")
    expected = make_file(source, SIZE)
    begun = time.monotonic()
    send = ada.run("send", source, "--to", "ld-b")
    assert send.wait_exit(60) == 0, send.output() + daemon.output()
    taken = time.monotonic() - begun
    assert sha256(peer.wait_file("limited.bin", timeout=10, size=SIZE)) == expected
    assert taken >= LOCALSEND_FLOOR, f"{SIZE} bytes to ld-b in {taken:.2f} s, faster than its {RATE} bytes a second"
