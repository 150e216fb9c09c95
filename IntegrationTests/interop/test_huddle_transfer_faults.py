"""Issue 4: transfers that meet a full disk, a directory they may not write, and a file that changes while it
is sent: each ends with a clear error, nothing half-written becomes visible, and nothing is corrupted."""

from __future__ import annotations

import os
import subprocess
import threading
import time

import pytest

from test_huddle_transfer import make_file, sha256, spawn


@pytest.mark.hosts(2)
def test_a_full_disk_fails_clearly_and_keeps_the_partial_for_later(testbed, huddle, homes):
    a, b = testbed[0], testbed[1]
    small = homes("small-disk")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", small], check=True)
    try:
        source = os.path.join(homes("files"), "big.bin")
        make_file(source, 12 * 1024 * 1024)
        receiver = spawn(b, homes("b"), "receive", "--dir", small, "--yes", "--name", "Bob")
        receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
        sender = spawn(a, homes("a"), "send", source, "--to", "Bob", "--yes", "--name", "Ada")
        assert sender.wait_exit(60) == 1, sender.output()
        said = " ".join(sender.err_lines + [l for _, l in receiver.lines] + receiver.err_lines).lower()
        assert "space" in said, sender.output() + receiver.output()
        visible = [n for n in os.listdir(small) if not n.startswith(".")]
        assert visible == [], visible
        receiver.stop()
    finally:
        subprocess.run(["umount", small], check=False)


@pytest.mark.hosts(2)
def test_a_directory_that_cannot_be_written_is_refused_with_the_reason(testbed, huddle, homes):
    a, b = testbed[0], testbed[1]
    locked = homes("locked")
    source = os.path.join(homes("files"), "note.bin")
    make_file(source, 1024 * 1024)
    os.chmod(locked, 0o555)
    try:
        # Root ignores permission bits: make the directory read-only the way root cannot ignore.
        subprocess.run(["mount", "--bind", locked, locked], check=True)
        subprocess.run(["mount", "-o", "remount,bind,ro", locked], check=True)
        receiver = spawn(b, homes("b"), "receive", "--dir", locked, "--yes", "--name", "Bob")
        receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
        sender = spawn(a, homes("a"), "send", source, "--to", "Bob", "--yes", "--name", "Ada")
        assert sender.wait_exit(60) == 1, sender.output()
        said = " ".join(sender.err_lines + receiver.err_lines).lower()
        assert "read-only" in said or "cannot write" in said or "permission" in said, \
            sender.output() + receiver.output()
        assert os.listdir(locked) == []
        receiver.stop()
    finally:
        subprocess.run(["umount", locked], check=False)
        os.chmod(locked, 0o755)


@pytest.mark.hosts(2)
def test_a_file_changed_while_sent_is_never_kept(testbed, huddle, homes):
    a, b = testbed[0], testbed[1]
    source = os.path.join(homes("files"), "moving.bin")
    make_file(source, 64 * 1024 * 1024)
    inbox = homes("inbox")
    receiver = spawn(b, homes("b"), "receive", "--dir", inbox, "--yes", "--name", "Bob", "--json")
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    sender = spawn(a, homes("a"), "send", source, "--to", "Bob", "--yes", "--name", "Ada", "--json")
    receiver.wait_event(lambda e: e.get("event") == "progress" and e.get("completed", 0) >= 4 << 20, 60)
    with open(source, "r+b") as f:
        f.seek(60 * 1024 * 1024)
        f.write(b"\xff" * 4096)
    assert sender.wait_exit(60) == 1, sender.output()
    assert not os.path.exists(os.path.join(inbox, "moving.bin")), "a file that changed must not be kept"
    said = " ".join(sender.err_lines).lower()
    assert "changed" in said or "sha-256" in said or "mismatch" in said, sender.output()
    receiver.stop()
