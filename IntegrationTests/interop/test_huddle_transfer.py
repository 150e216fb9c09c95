"""Issue 4 (first slice): `huddle send` / `huddle receive` between test hosts — a large file arrives
byte-identical, and a sender killed mid-transfer resumes from the receiver's partial file.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import time

from huddle_cli import huddle_bin

import pytest

SIZE = 96 * 1024 * 1024
PROGRESS = re.compile(r"receiving \w+: \d+% \(\d+/\d+ bytes, \d+(\.\d)? (B|KiB|MiB|GiB)/s"
                      r"(, (under 1 s|\d+ s|\d+ min \d\d s|\d+ h \d\d min) left)?\)")


def make_file(path: str, size: int) -> str:
    """A file of pseudo-random bytes; returns its SHA-256."""
    digest = hashlib.sha256()
    block = os.urandom(1 << 20)
    with open(path, "wb") as f:
        written = 0
        while written < size:
            piece = bytes((b + written // (1 << 20)) % 256 for b in block[:64]) + block[64:]
            piece = piece[: size - written]
            f.write(piece)
            digest.update(piece)
            written += len(piece)
    return digest.hexdigest()


def sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def spawn(host, home: str, *args: str, stdin: bool = False):
    env = dict(os.environ, HUDDLE_HOME=home)
    argv = [huddle_bin(), *args, "--host", f"huddle-{host.letter}", "--interface", host.ifname]
    return host.spawn(*argv, label=f"{host.letter}:{args[0]}", stdin=stdin, env=env)


@pytest.mark.hosts(2)
def test_large_file_arrives_identical_and_a_killed_sender_resumes(testbed, huddle, homes):
    """96 MiB: the sender is SIGKILLed after the receiver has 16 MiB or more; a new sender resumes from the
    partial file (re-sending less than 1 MiB beyond it) and the result is byte-identical."""
    a, b = testbed[0], testbed[1]
    source = os.path.join(homes("files"), "big.bin")
    expected = make_file(source, SIZE)
    inbox = homes("inbox")
    receiver = spawn(b, homes("b"), "receive", "--dir", inbox, "--yes", "--count", "1", "--name", "Bob")
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    sender = spawn(a, homes("a"), "send", source, "--to", "Bob", "--yes", "--name", "Ada")
    receiver.wait_line(lambda l: l.startswith("receiving") and int(re.search(r"\((\d+)/", l).group(1)) >= 16 << 20,
                       60)
    os.kill(sender.pid, signal.SIGKILL)
    time.sleep(0.5)
    partials = [n for n in os.listdir(inbox) if n.endswith(".huddle-partial")]
    assert len(partials) == 1, os.listdir(inbox)
    kept = os.path.getsize(os.path.join(inbox, partials[0]))
    assert kept >= 16 << 20
    sender = spawn(a, homes("a"), "send", source, "--to", "Bob", "--yes", "--name", "Ada")
    resumed = sender.wait_line(lambda l: l.startswith("resuming"), 60)
    start = int(re.search(r"at (\d+) bytes", resumed).group(1))
    assert kept <= start <= kept + (1 << 20), (kept, start)
    sender.wait_line(lambda l: l == "sent big.bin: verified by the receiver", 120)
    assert sender.wait_exit(20) == 0, sender.output()
    receiver.wait_line(lambda l: l.startswith("received "), 10)
    assert receiver.wait_exit(20) == 0, receiver.output()
    assert sorted(os.listdir(inbox)) == ["big.bin"]
    assert sha256(os.path.join(inbox, "big.bin")) == expected
    # Plain progress lines: the rate in a fitting unit and the time left, dropped once nothing is left.
    shown = [line for _, line in receiver.lines if line.startswith("receiving ")]
    assert len(shown) >= 4 and all(PROGRESS.match(line) for line in shown), shown
    assert " 100% (" in shown[-1] and " left)" not in shown[-1], shown
    assert any(" left)" in line for line in shown), shown


@pytest.mark.full
@pytest.mark.hosts(2)
def test_one_gibibyte_arrives_byte_identical(testbed, huddle, homes):
    """A 1 GiB file between test hosts: verified on arrival, identical on disk, both ends exit 0."""
    a, b = testbed[0], testbed[1]
    source = os.path.join(homes("files"), "gib.bin")
    expected = make_file(source, 1 << 30)
    inbox = homes("inbox")
    receiver = spawn(b, homes("b"), "receive", "--dir", inbox, "--yes", "--count", "1", "--name", "Bob", "--json")
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    sender = spawn(a, homes("a"), "send", source, "--to", "Bob", "--yes", "--name", "Ada", "--json")
    sender.wait_event(lambda e: e.get("event") == "sent" and e.get("file") == "gib.bin", 300)
    assert sender.wait_exit(20) == 0, sender.output()
    progress = [e for e in sender.events() if e.get("event") == "progress"]
    assert progress and progress[-1]["completed"] == progress[-1]["total"] == 1 << 30
    assert [e["completed"] for e in progress] == sorted(e["completed"] for e in progress)
    received = receiver.wait_event(lambda e: e.get("event") == "received", 20)
    assert received["path"].endswith("/gib.bin")
    assert receiver.wait_exit(20) == 0, receiver.output()
    assert sorted(os.listdir(inbox)) == ["gib.bin"]
    assert os.path.getsize(os.path.join(inbox, "gib.bin")) == 1 << 30
    assert sha256(os.path.join(inbox, "gib.bin")) == expected
