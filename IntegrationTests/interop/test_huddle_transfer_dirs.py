"""Issue 4 (directories): `huddle send DIR` / `huddle receive` between test hosts — a tree of 1,000 small files
arrives identical (every path and SHA-256 compared), and a directory whose sender is killed part-way is finished
by a second run that sends only what the receiver does not have.
"""

from __future__ import annotations

import hashlib
import os
import signal

from huddle_cli import huddle_bin

import pytest


def make_tree(root: str, files: dict[str, int]) -> None:
    """Writes each relative path with `size` pseudo-random bytes (different for every file)."""
    for path, size in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        seed = hashlib.sha256(path.encode()).digest()
        data = (seed * (size // len(seed) + 1))[:size]
        with open(full, "wb") as f:
            f.write(os.urandom(16)[: min(16, size)] + data[16:])


def tree(root: str) -> dict[str, str]:
    """Every relative path under root: 'dir' for a directory, the SHA-256 of a file."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        for d in dirnames:
            out[os.path.normpath(os.path.join(rel, d))] = "dir"
        for f in filenames:
            with open(os.path.join(dirpath, f), "rb") as fh:
                out[os.path.normpath(os.path.join(rel, f))] = hashlib.sha256(fh.read()).hexdigest()
    return out


def spawn(host, home: str, *args: str):
    env = dict(os.environ, HUDDLE_HOME=home)
    argv = [huddle_bin(), *args, "--host", f"huddle-{host.letter}", "--interface", host.ifname]
    return host.spawn(*argv, label=f"{host.letter}:{args[0]}", env=env)


@pytest.mark.hosts(2)
def test_a_tree_of_1000_small_files_arrives_identical(testbed, huddle, homes):
    """1,000 files of 10 KiB in nested directories, plus an empty one: the offer shows the count and size, the
    tree arrives with every path and hash equal, and the receiver prints where it went."""
    a, b = testbed[0], testbed[1]
    source = os.path.join(homes("files"), "tree")
    files = {f"d{i % 10}/sub{i % 7}/file{i:04d}.bin": 10 * 1024 for i in range(1000)}
    make_tree(source, files)
    os.makedirs(os.path.join(source, "empty", "inner"))
    expected = tree(source)
    assert len(expected) == 1000 + 10 + 70 + 2
    inbox = homes("inbox")
    receiver = spawn(b, homes("b"), "receive", "--dir", inbox, "--yes", "--count", "1", "--name", "Bob", "--json")
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    sender = spawn(a, homes("a"), "send", source, "--to", "Bob", "--yes", "--name", "Ada", "--json")
    offer = receiver.wait_event(lambda e: e.get("event") == "offer", 60)
    assert offer["directory"] is True and offer["name"] == "tree"
    assert offer["files"] == 1000 and offer["size"] == 1000 * 10 * 1024
    received = receiver.wait_event(lambda e: e.get("event") == "received", 120)
    seconds = received["_t"] - offer["_t"]
    print(f"1000 files of 10 KiB: {seconds:.2f} s from offer to verified tree, {1000 / seconds:.0f} files/s")
    assert received["path"] == os.path.join(inbox, "tree")
    assert received["files"] == 1000 and received["directory"] is True
    sent = sender.wait_event(lambda e: e.get("event") == "sent", 30)
    assert sent["directory"] is True and sent["files"] == 1000 and sent["filesSent"] == 1000
    assert sent["bytesSent"] == 1000 * 10 * 1024
    assert sender.wait_exit(20) == 0, sender.output()
    assert receiver.wait_exit(20) == 0, receiver.output()
    assert sorted(os.listdir(inbox)) == ["tree"]
    assert tree(os.path.join(inbox, "tree")) == expected
    per_file = [e for e in receiver.events() if e.get("event") == "progress" and e.get("fileCompleted") is not None
                and e["fileCompleted"] == e["fileTotal"]]
    assert len(per_file) == 1000 and per_file[-1]["filesCompleted"] == 1000
    print(f"  offer to first file verified {per_file[0]['_t'] - offer['_t']:.2f} s, first to last file "
          f"{per_file[-1]['_t'] - per_file[0]['_t']:.2f} s, last file to tree in place "
          f"{received['_t'] - per_file[-1]['_t']:.2f} s")
    sending = [e for e in sender.events() if e.get("event") == "progress"]
    print(f"  sender: first to last file sent {sending[-1]['_t'] - sending[0]['_t']:.2f} s; first sent "
          f"{sending[0]['_t'] - offer['_t']:.2f} s after the offer showed")


def killed_send(a, b, homes, source: str, inbox: str, verified: int):
    """Starts a receiver (one offer, --yes) in b and `huddle send source` in a, and SIGKILLs the sender once the
    receiver has verified `verified` files or more. Returns the receiver and its staging directory's name."""
    receiver = spawn(b, homes("b"), "receive", "--dir", inbox, "--yes", "--count", "1", "--name", "Bob", "--json")
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    sender = spawn(a, homes("a"), "send", source, "--to", "Bob", "--yes", "--name", "Ada", "--json")
    receiver.wait_event(lambda e: e.get("event") == "progress" and e.get("filesCompleted", 0) >= verified, 120)
    os.kill(sender.pid, signal.SIGKILL)
    receiver.wait_event(lambda e: e.get("event") == "failed", 30)
    staging = [n for n in os.listdir(inbox) if n.endswith(".huddle-partial")]
    assert len(staging) == 1, os.listdir(inbox)
    return receiver, staging[0]


@pytest.mark.hosts(2)
def test_a_killed_directory_send_resumes_with_only_what_is_missing(testbed, huddle, homes):
    """40 files of 1 MiB: the sender is SIGKILLed once the receiver has verified 10 or more; a second run sends
    at most the other 30 MiB and the tree arrives identical."""
    a, b = testbed[0], testbed[1]
    source = os.path.join(homes("files"), "album")
    make_tree(source, {f"part{i // 10}/photo{i:02d}.raw": 1 << 20 for i in range(40)})
    expected = tree(source)
    inbox = homes("inbox")
    receiver, staging = killed_send(a, b, homes, source, inbox, 10)
    assert staging.startswith(".album."), staging
    have = len([n for _, _, names in os.walk(os.path.join(inbox, staging, "tree")) for n in names])
    assert 10 <= have < 40
    mark = receiver.mark()
    sender = spawn(a, homes("a"), "send", source, "--to", "Bob", "--yes", "--name", "Ada", "--json")
    sent = sender.wait_event(lambda e: e.get("event") == "sent", 120)
    assert sender.wait_exit(20) == 0, sender.output()
    assert sent["files"] == 40 and sent["filesSent"] <= 40 - have
    assert sent["bytesSent"] <= (40 - have) << 20
    received = receiver.wait_event(lambda e: e.get("event") == "received", 30, start=mark)
    assert received["path"] == os.path.join(inbox, "album")
    assert receiver.wait_exit(20) == 0, receiver.output()
    assert sorted(os.listdir(inbox)) == ["album"]
    assert tree(os.path.join(inbox, "album")) == expected


@pytest.mark.hosts(2)
def test_a_tree_edited_between_two_runs_sends_only_what_changed_or_was_missing(testbed, huddle, homes):
    """20 files of 1 MiB: the sender is SIGKILLed once the receiver has verified 5 or more; then one verified
    file is rewritten (new size, new time) before the second run. The second run's manifest differs, yet it sends
    only the rewritten file and the ones not verified; the tree arrives identical, and no staging directory is
    left behind."""
    a, b = testbed[0], testbed[1]
    source = os.path.join(homes("files"), "shots")
    make_tree(source, {f"shot{i:02d}.raw": 1 << 20 for i in range(20)})
    inbox = homes("inbox")
    receiver, staging = killed_send(a, b, homes, source, inbox, 5)
    verified = sorted(n for _, _, names in os.walk(os.path.join(inbox, staging, "tree")) for n in names)
    assert 5 <= len(verified) < 20, verified
    with open(os.path.join(source, verified[0]), "ab") as f:
        f.write(b"edited" * 1000)
    expected = tree(source)
    mark = receiver.mark()
    sender = spawn(a, homes("a"), "send", source, "--to", "Bob", "--yes", "--name", "Ada", "--json")
    sent = sender.wait_event(lambda e: e.get("event") == "sent", 120)
    assert sender.wait_exit(20) == 0, sender.output()
    missing = 20 - len(verified) + 1
    assert sent["files"] == 20 and sent["filesSent"] <= missing, (sent, len(verified))
    assert sent["bytesSent"] <= (missing << 20) + 6000, (sent, len(verified))
    received = receiver.wait_event(lambda e: e.get("event") == "received", 30, start=mark)
    assert received["path"] == os.path.join(inbox, "shots")
    assert receiver.wait_exit(20) == 0, receiver.output()
    assert sorted(os.listdir(inbox)) == ["shots"]
    assert tree(os.path.join(inbox, "shots")) == expected
