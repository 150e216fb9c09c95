"""Huddle and the foreign peers with a 100 MiB file: `huddle send` to, and `huddle receive` from, localsendd
(LocalSend v2 over HTTPS) and Debian's kdeconnectd (KDE Connect 7), each peer in a test host of its own.

Full tier. Each file is random, written into the bed's temporary directory (removed with the bed), and must arrive
whole: the same size and SHA-256. Huddle's `--json` progress for the transfer must rise to the size in steps, in
the right direction. The throughput seen is printed (pytest -s).
"""

from __future__ import annotations

import hashlib
import os
import signal

import pytest

from huddle_cli import huddle_bin
from localsend_peer import sha256_file
from test_huddle_kdeconnect import pair

pytestmark = pytest.mark.full
BED = pytest.mark.hosts(2, default_route=True)
SIZE = 100 << 20
CHUNK = 4 << 20


def random_file(directory: str, name: str, size: int = SIZE) -> tuple[str, str]:
    """A file of size random bytes written in 4 MiB chunks; its path and SHA-256."""
    path = os.path.join(directory, name)
    digest = hashlib.sha256()
    with open(path, "wb") as f:
        left = size
        while left:
            chunk = os.urandom(min(left, CHUNK))
            f.write(chunk)
            digest.update(chunk)
            left -= len(chunk)
    return path, digest.hexdigest()


def spawn(host, home: str, *args: str, merge_stderr: bool = False):
    """huddle ARGS in host, with its own data directory, on the test link."""
    env = dict(os.environ, HUDDLE_HOME=home)
    argv = [huddle_bin(), *args, "--host", f"huddle-{host.letter}", "--interface", host.ifname]
    return host.testbed.track(host.spawn(*argv, label=f"{host.letter}:{args[0]}", env=env,
                                         merge_stderr=merge_stderr))


def inbox(testbed) -> str:
    """A receive directory in the bed's temporary directory (it goes with the bed)."""
    path = os.path.join(testbed.tmpdir, "inbox")
    os.makedirs(path)
    return path


def check_progress(proc, name: str, direction: str, size: int = SIZE) -> float:
    """The progress events proc printed for name: all in direction with the total size, never going back, some
    mid-way and the last at the size, once. Returns the MiB/s between the first and the last."""
    steps = [e for e in proc.events() if e.get("event") == "progress"]
    assert len(steps) >= 10, proc.output()
    assert all((e["file"], e["direction"], e["total"]) == (name, direction, size) for e in steps), steps[:3]
    done = [e["completed"] for e in steps]
    assert done == sorted(done), "progress went back"
    assert any(0 < c < size for c in done), done
    assert done[-1] == size, done[-5:]
    assert done.count(size) == 1, f"the end was reported {done.count(size)} times"
    seconds = steps[-1]["_t"] - steps[0]["_t"]
    rate = (size - done[0]) / (1 << 20) / seconds if seconds > 0 else float("inf")
    print(f"\n{name} {direction}: {len(steps)} progress events, {rate:.1f} MiB/s from the first to the last")
    return rate


def check_file(path: str, digest: str, size: int = SIZE) -> None:
    """The file is whole: its size and SHA-256."""
    assert os.path.getsize(path) == size
    assert sha256_file(path) == digest


def send_large(testbed, host, home: str, to: str, protocol: str) -> str:
    """`huddle send large.bin --to TO --json` on host: `sent` to TO over protocol, exit 0, progress up to the
    size. Returns the file's SHA-256."""
    path, digest = random_file(testbed.tmpdir, "large.bin")
    sender = spawn(host, home, "send", path, "--to", to, "--name", "Ada", "--json", "--wait", "20")
    sent = sender.wait_event(lambda e: e.get("event") == "sent", 150)
    assert (sent["file"], sent["peer"], sent["protocol"]) == ("large.bin", to, protocol), sent
    assert sender.wait_exit(15) == 0, sender.output()
    check_progress(sender, "large.bin", "send")
    return digest

@BED
def test_100_mib_sent_by_huddle_arrive_whole_at_localsendd(testbed, localsendd, homes):
    """`huddle send FILE --to ld-b --json`: progress up to 100 MiB, `sent`, exit 0, and localsendd has the file
    under its name with the same size and SHA-256, and nothing else."""
    a, b = testbed.hosts
    peer = localsendd(b, "ld-b")
    digest = send_large(testbed, a, homes("a"), "ld-b", "LocalSend")
    check_file(peer.wait_file("large.bin", timeout=30, size=SIZE), digest)
    assert peer.received_files() == ["large.bin"]


@BED
def test_100_mib_sent_by_localsendd_arrive_whole_at_huddle_receive(testbed, localsendd, homes):
    """localsendd sends to `huddle receive --yes --json`: the offer shows the size, progress rises to 100 MiB, the
    file is kept under its name with the same size and SHA-256, and no partial file is left."""
    a, b = testbed.hosts
    peer = localsendd(b, "ld-b")
    directory = inbox(testbed)
    path, digest = random_file(testbed.tmpdir, "large.bin")
    receiver = spawn(a, homes("a"), "receive", "--dir", directory, "--yes", "--count", "1", "--json",
                     "--name", "Ada")
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    peer.wait_device("Ada", timeout=15)
    result = peer.send(path, "Ada", timeout=150)
    assert result.ok, result
    offer = receiver.wait_event(lambda e: e.get("event") == "offer", 10)
    assert (offer["protocol"], offer["from"], offer["name"], offer["size"]) == \
        ("LocalSend", "ld-b", "large.bin", SIZE), offer
    got = receiver.wait_event(lambda e: e.get("event") == "received", 30)
    assert got["path"] == os.path.join(os.path.realpath(directory), "large.bin"), got
    assert receiver.wait_exit(15) == 0, receiver.output()
    check_progress(receiver, "large.bin", "receive")
    check_file(got["path"], digest)
    assert os.listdir(directory) == ["large.bin"]


@BED
def test_100_mib_sent_by_huddle_arrive_whole_at_kdeconnectd(testbed, kdeconnect, homes):
    """Paired through `huddle receive --yes` (then interrupted), `huddle send FILE --to kc-b --json` sends 100 MiB:
    progress up to the size, `sent`, exit 0, and kc-b's Downloads has the file with the same size and SHA-256."""
    a, b = testbed.hosts
    kc = kdeconnect(b, "kc-b")
    home = homes("a")
    receiver = spawn(a, home, "receive", "--dir", inbox(testbed), "--yes", "--json", "--name", "Ada")
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    pair(kc, receiver)
    assert receiver.stop(signal.SIGINT, timeout=15) == 130, receiver.output()
    digest = send_large(testbed, a, home, "kc-b", "KDE Connect")
    check_file(kc.wait_file("large.bin", timeout=60, size=SIZE), digest)
    assert kc.received_files() == ["large.bin"]


@BED
def test_100_mib_sent_by_kdeconnectd_arrive_whole_at_huddle_receive(testbed, kdeconnect, homes):
    """kc-b pairs with `huddle receive --yes --json --count 1`, then shares 100 MiB: the offer shows KDE Connect
    and the size, progress rises to it, the file is kept under its name with the same size and SHA-256, and no
    partial file is left."""
    a, b = testbed.hosts
    kc = kdeconnect(b, "kc-b")
    directory = inbox(testbed)
    receiver = spawn(a, homes("a"), "receive", "--dir", directory, "--yes", "--json", "--count", "1",
                     "--name", "Ada")
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    ada = pair(kc, receiver)
    path, digest = random_file(testbed.tmpdir, "large.bin")
    kc.share_file(path, ada)
    offer = receiver.wait_event(lambda e: e.get("event") == "offer", 20)
    assert (offer["protocol"], offer["from"], offer["name"], offer["size"]) == \
        ("KDE Connect", "kc-b", "large.bin", SIZE), offer
    got = receiver.wait_event(lambda e: e.get("event") == "received", 150)
    assert got["path"] == os.path.join(os.path.realpath(directory), "large.bin"), got
    assert receiver.wait_exit(15) == 0, receiver.output()
    check_progress(receiver, "large.bin", "receive")
    check_file(got["path"], digest)
    assert os.listdir(directory) == ["large.bin"]
