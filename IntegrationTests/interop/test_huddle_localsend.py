"""Huddle and LocalSend: `huddle send` to, and `huddle receive` from, localsendd (an independent LocalSend
v2 implementation) in another test host, over HTTPS, found by LocalSend's own multicast.

Smoke tier: discovery both ways and one small file each way. Each side checks the other's certificate
fingerprint: localsendd pins the fingerprint Huddle announces, and Huddle pins localsendd's.
"""

from __future__ import annotations

import hashlib
import os
import secrets

import pytest

from huddle_cli import huddle_bin
from localsend_peer import FINGERPRINT_RE, https_info, plain_ip

BED = pytest.mark.hosts(2, default_route=True)


def random_file(directory: str, name: str, size: int) -> tuple[str, str]:
    """A file of size random bytes; its path and SHA-256."""
    path = os.path.join(directory, name)
    data = secrets.token_bytes(size)
    with open(path, "wb") as f:
        f.write(data)
    return path, hashlib.sha256(data).hexdigest()


def sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def spawn(host, home: str, *args: str, merge_stderr: bool = False):
    """huddle ARGS in host, with its own data directory, on the test link."""
    env = dict(os.environ, HUDDLE_HOME=home)
    argv = [huddle_bin(), *args, "--host", f"huddle-{host.letter}", "--interface", host.ifname]
    return host.spawn(*argv, label=f"{host.letter}:{args[0]}", env=env, merge_stderr=merge_stderr)


@BED
def test_huddle_sends_a_file_to_localsendd_which_pinned_what_huddle_announced(testbed, localsendd, homes):
    """localsendd finds Huddle by multicast with the fingerprint of the certificate Huddle serves; `huddle
    send --to ALIAS` finds localsendd, and the file arrives byte-identical under its own name.

    localsendd is attended, so `huddle send` (which sends as soon as it finds localsendd) is still running, its
    offer waiting for the answer, while the certificate it serves is checked."""
    a, b = testbed.hosts
    peer = localsendd(b, "ld-b", unattended=False)
    path, digest = random_file(homes("files"), "photo.jpg", 100_000)
    sender = spawn(a, homes("a"), "send", path, "--to", "ld-b", "--name", "Ada", "--wait", "20")
    seen = peer.wait_device("Ada", timeout=15)
    assert plain_ip(seen["ip"]) == a.ipv4, seen
    assert FINGERPRINT_RE.fullmatch(seen["fingerprint"]), seen
    incoming = peer.wait_incoming(timeout=15)
    assert (incoming["from"], incoming["files"]) == ("Ada", [{"fileName": "photo.jpg", "size": 100_000}]), incoming
    served = https_info(b, a.ipv4, seen["port"])
    assert served.status == 200, served
    assert served.cert_fingerprint == seen["fingerprint"] == served.info["fingerprint"], served
    assert (served.info["alias"], served.info["deviceModel"], served.info["protocol"]) == ("Ada", "Huddle", "https")
    assert peer.accept(incoming["sessionId"]) == "Accepted."
    line = sender.wait_line(lambda l: l.startswith("sent photo.jpg"), 30)
    assert line == f"sent photo.jpg to ld-b (LocalSend, fingerprint {peer.fingerprint[:8]}… — not verified)", line
    assert sender.wait_exit(15) == 0, sender.output()
    received = peer.wait_file("photo.jpg", timeout=10, size=100_000)
    assert sha256(received) == digest
    assert peer.received_files() == ["photo.jpg"]


@BED
def test_localsendd_sends_a_file_to_huddle_receive_which_asks_and_keeps_it(testbed, localsendd, homes):
    """localsendd sends to Huddle's receive: the offer shows LocalSend and the sender's fingerprint, the file is
    kept byte-identical, and a name already taken is never overwritten."""
    a, b = testbed.hosts
    peer = localsendd(b, "ld-b")
    inbox = homes("inbox")
    with open(os.path.join(inbox, "notes.txt"), "w") as f:
        f.write("already here")
    receiver = spawn(a, homes("a"), "receive", "--dir", inbox, "--yes", "--count", "1", "--json", "--name", "Ada")
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    peer.wait_device("Ada", timeout=15)
    path, digest = random_file(homes("files"), "notes.txt", 50_000)
    result = peer.send(path, "Ada", timeout=30)
    assert result.ok, result
    offer = receiver.wait_event(lambda e: e.get("event") == "offer", 10)
    assert (offer["protocol"], offer["from"], offer["name"], offer["size"]) == ("LocalSend", "ld-b", "notes.txt", 50_000)
    assert offer["fingerprint"] == peer.fingerprint, offer
    got = receiver.wait_event(lambda e: e.get("event") == "received", 10)
    assert got["path"] == os.path.join(os.path.realpath(inbox), "notes (2).txt"), got
    assert receiver.wait_exit(15) == 0, receiver.output()
    assert sha256(got["path"]) == digest
    with open(os.path.join(inbox, "notes.txt")) as f:
        assert f.read() == "already here"
    assert sorted(os.listdir(inbox)) == ["notes (2).txt", "notes.txt"]


@BED
def test_huddle_peers_lists_localsendd_apart_and_a_changed_certificate_is_refused_loudly(testbed, localsendd, homes):
    """`huddle peers --json` lists localsendd as a LocalSend device (fingerprint, not verified, unpinned). The first
    send pins its fingerprint; a new localsendd under the same alias (a new certificate) is then warned about, and
    without a person to say yes nothing is sent to it."""
    a, b = testbed.hosts
    peer = localsendd(b, "ld-b")
    home = homes("a")
    lister = testbed.track(a.spawn(huddle_bin(), "peers", "--json", "--name", "Ada", "--host", "huddle-a",
                                   "--interface", a.ifname, label="a:peers", stdin=True,
                                   env=dict(os.environ, HUDDLE_HOME=home)))
    found = lister.wait_event(lambda e: e.get("event") == "found" and e.get("protocol") == "LocalSend", 15)
    assert (found["name"], found["fingerprint"], found["trust"], found["verified"]) == \
        ("ld-b", peer.fingerprint, "unpinned", False), found
    assert found["address"] == f"{b.ipv4}:53317", found
    lister.stop()

    path, _ = random_file(homes("files"), "first.bin", 1000)
    first = spawn(a, home, "send", path, "--to", "ld-b", "--name", "Ada")
    first.wait_line(lambda l: l.startswith("* pinned LocalSend device ld-b (fingerprint "
                                           f"{peer.fingerprint[:16]}…) on first use"), 30)
    assert first.wait_exit(15) == 0, first.output()
    with open(os.path.join(home, "foreign-pins.json")) as f:
        assert peer.fingerprint in f.read()

    peer.stop()
    impostor = localsendd(b, "ld-b")
    assert impostor.fingerprint != peer.fingerprint
    second_path, _ = random_file(homes("files"), "second.bin", 1000)
    second = spawn(a, home, "send", second_path, "--to", "ld-b", "--name", "Ada", merge_stderr=True)
    warning = second.wait_line(
        lambda l: l.startswith("huddle: WARNING: the LocalSend device ld-b now shows fingerprint"), 30)
    assert impostor.fingerprint[:16] in warning and peer.fingerprint[:16] in warning, warning
    assert second.wait_exit(15) != 0, second.output()
    assert any(line == "huddle: ld-b: not sent (its certificate changed)" for _, line in second.lines), \
        second.output()
    assert impostor.received_files() == []


@pytest.mark.full
@BED
def test_a_pin_asked_by_localsendd_is_given_by_option_or_typed_at_the_prompt(testbed, localsendd, homes):
    """localsendd with a PIN: without one and without a terminal the send fails saying a PIN is needed; a wrong
    --pin is refused; typed at the prompt after a refusal, the right one gets the file there byte-identical."""
    a, b = testbed.hosts
    peer = localsendd(b, "ld-b", pin="4321")
    home = homes("a")
    path, digest = random_file(homes("files"), "locked.bin", 20_000)
    bare = spawn(a, home, "send", path, "--to", "ld-b", "--name", "Ada", merge_stderr=True)
    assert bare.wait_exit(30) != 0, bare.output()
    assert any(l == "huddle: ld-b: the device asks for a PIN: give it with --pin" for _, l in bare.lines), bare.output()
    env = dict(os.environ, HUDDLE_HOME=home)
    typed = testbed.track(a.spawn(huddle_bin(), "send", path, "--to", "ld-b", "--name", "Ada", "--pin", "1111",
                                  "--host", "huddle-a", "--interface", a.ifname, label="a:send", stdin=True, env=env))
    typed.wait_line(lambda l: l == "? ld-b refused the PIN; PIN:", 30)
    typed.send("4321")
    typed.wait_line(lambda l: l.startswith("sent locked.bin to ld-b"), 30)
    assert typed.wait_exit(15) == 0, typed.output()
    assert sha256(peer.wait_file("locked.bin", timeout=10, size=20_000)) == digest
    assert peer.received_files() == ["locked.bin"]
