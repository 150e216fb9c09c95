"""Huddle and a second, independent LocalSend implementation: the `localsend` Python package (v0.1.2, protocol
v2.1; localsend_second_peer.py), each in its own test host, over HTTPS, found by LocalSend's own multicast.

It differs from localsendd (test_huddle_localsend.py) where interop breaks most easily: it announces once and
answers every multicast message with POST /register, and one answer it cannot read ends its discovery for good; its
sender asks /api/localsend/v1/info with a GET that carries a body before each transfer, uploads with chunked
transfer encoding and no SHA-256, shows no client certificate, and takes a 204 for an error; its receiver takes
several files at once. Full tier: the package needs the Python 3.12 venv scripts/test --full makes.
"""

from __future__ import annotations

import hashlib
import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from huddle_cli import huddle_bin
from localsend_peer import PORT, https_info
from test_huddle_localsend import random_file, sha256

pytestmark = pytest.mark.full
BED = pytest.mark.hosts(2, default_route=True)


def huddle_fingerprint(home: str) -> str:
    """The fingerprint Huddle announces for LocalSend: SHA-256 of the certificate it keeps, uppercase."""
    with open(os.path.join(home, "foreign", "localsend.der"), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest().upper()


def spawn(host, home: str, *args: str, merge_stderr: bool = False, stdin: bool = False):
    """huddle ARGS in host, with its own data directory, on the test link."""
    env = dict(os.environ, HUDDLE_HOME=home)
    argv = [huddle_bin(), *args, "--host", f"huddle-{host.letter}", "--interface", host.ifname]
    return host.spawn(*argv, label=f"{host.letter}:{args[0]}", env=env, merge_stderr=merge_stderr, stdin=stdin)


def answered(receiver, send, start: int | None = None):
    """Runs send() (the package's sender, which waits for the answer) while `receiver` (spawned with stdin) is
    answered y to the offer it makes: the package's client shows no certificate, so even `--yes` asks. Returns
    the offer event and what send() returned."""
    start = receiver.mark() if start is None else start
    with ThreadPoolExecutor(1) as pool:
        sending = pool.submit(send)
        offer = receiver.wait_event(lambda e: e.get("event") == "offer", 30, start)
        receiver.send("y")
        return offer, sending.result(timeout=90)


@BED
def test_huddle_peers_and_the_second_peer_find_each_other_and_its_discovery_survives(
        testbed, localsend_second, homes):
    """The package runs first; `huddle peers --json` then lists it (its alias, address, fingerprint; unpinned, not
    verified), and it lists Huddle: device model Huddle, type headless, version 2.1, the fingerprint of the
    certificate Huddle keeps and serves. It hears each of Huddle's first three announcements and registers back
    every time: Huddle's register answers are ones it can read (an unreadable one would end its multicast loop)."""
    a, b = testbed.hosts
    second = localsend_second(b, "ls-b")
    home = homes("a")
    lister = spawn(a, home, "peers", "--json", "--name", "Ada", stdin=True)
    found = lister.wait_event(lambda e: e.get("event") == "found" and e.get("protocol") == "LocalSend", 20)
    assert (found["name"], found["fingerprint"], found["trust"], found["verified"]) == \
        ("ls-b", second.fingerprint, "unpinned", False), found
    assert found["address"] == f"{b.ipv4}:{PORT}", found

    seen = second.wait_device("Ada", timeout=15)
    fingerprint = huddle_fingerprint(home)
    assert {k: seen[k] for k in ("host", "fingerprint", "version", "deviceModel", "deviceType", "protocol")} == \
        {"host": a.ipv4, "fingerprint": fingerprint, "version": "2.1", "deviceModel": "Huddle",
         "deviceType": "headless", "protocol": "https"}, seen
    served = https_info(b, a.ipv4, seen["port"])
    assert (served.status, served.cert_fingerprint, served.info["fingerprint"]) == (200, fingerprint, fingerprint)
    # Announcements at 0, 1 and 3 s: each one heard means the loop lived through the register before it.
    heard = second.wait_device_events("Ada", 3, timeout=15, announce=True)
    assert {(e["host"], e["fingerprint"]) for e in heard} == {(a.ipv4, fingerprint)}, heard
    assert [d["alias"] for d in second.devices()] == ["Ada"]
    problems = [m for m in second.log_messages() if "Stopped receiving" in m or "Error while validating" in m]
    assert problems == [], second.output()
    assert [e["name"] for e in lister.events() if e.get("event") == "found" and e.get("protocol") == "LocalSend"] \
        == ["ls-b"], lister.output()


@BED
def test_huddle_send_reaches_it_byte_identical_files_and_a_text(testbed, localsend_second, homes):
    """`huddle send A B C --to ls-b`: one offer of the three files with their sizes, MIME types and SHA-256, from
    Huddle's alias and fingerprint; all arrive byte-identical (3 MB, 1 byte under a non-ASCII name, an empty one),
    and `huddle send` ends at once though the package keeps a connection to it open.
    `huddle send --text` is an offer of one text/plain file whose preview is the text; this receiver asks for the
    bytes too, and they are the text."""
    a, b = testbed.hosts
    second = localsend_second(b, "ls-b")
    home, files = homes("a"), homes("files")
    big, big_digest = random_file(files, "photo.jpg", 3_000_000)
    tiny, tiny_digest = random_file(files, "Grüße ✓.md", 1)
    empty, empty_digest = random_file(files, "empty.bin", 0)
    sender = spawn(a, home, "send", big, tiny, empty, "--to", "ls-b", "--name", "Ada", "--wait", "20")
    sender.wait_line(lambda l: l.startswith("sent "), 60)
    # The package keeps the connection of its /register to Huddle open and idle: Huddle's exit does not wait for it
    # (it once waited 5 s for a TLS close_notify that never came).
    assert sender.wait_exit(3) == 0, sender.output()
    fingerprint = huddle_fingerprint(home)
    for path, digest, size, kind in ((big, big_digest, 3_000_000, "image/jpeg"),
                                     (tiny, tiny_digest, 1, "text/markdown"),
                                     (empty, empty_digest, 0, "application/octet-stream")):
        name = os.path.basename(path)
        offer = second.wait_offer(name, timeout=10)
        assert (offer["from"], offer["fromFingerprint"], offer["host"], offer["size"], offer["fileType"],
                offer["sha256"], offer["accepted"]) == ("Ada", fingerprint, a.ipv4, size, kind, digest, True), offer
        got = second.wait_received(name, timeout=30)
        assert (got["size"], got["sha256"]) == (size, digest), got
        assert sha256(got["path"]) == digest
    assert second.received_files() == ["Grüße ✓.md", "empty.bin", "photo.jpg"]

    text = "héllo from Huddle\n✓"
    said = spawn(a, home, "send", "--text", text, "--to", "ls-b", "--name", "Ada")
    said.wait_line(lambda l: l.startswith("sent the text to ls-b (LocalSend, fingerprint "), 30)
    assert said.wait_exit(15) == 0, said.output()
    offer = second.wait_offer(lambda e: e["fileType"] == "text/plain", timeout=10)
    assert (offer["preview"], offer["size"], offer["from"]) == (text, len(text.encode()), "Ada"), offer
    assert offer["sha256"] == hashlib.sha256(text.encode()).hexdigest(), offer
    with open(second.wait_received(offer["fileName"], timeout=10)["path"], encoding="utf-8") as f:
        assert f.read() == text


@BED
def test_huddle_send_to_it_declining_says_so_and_sends_nothing(testbed, localsend_second, homes):
    """A receiver that accepts none of the files answers 403: `huddle send` fails saying the device declined."""
    a, b = testbed.hosts
    second = localsend_second(b, "ls-b", decline=True)
    path, _ = random_file(homes("files"), "unwanted.bin", 10_000)
    sender = spawn(a, homes("a"), "send", path, "--to", "ls-b", "--name", "Ada", "--wait", "20", merge_stderr=True)
    assert sender.wait_exit(30) not in (None, 0), sender.output()
    assert any(line == "huddle: ls-b: the device declined the files" for _, line in sender.lines), sender.output()
    assert second.wait_offer("unwanted.bin", timeout=5)["accepted"] is False
    assert second.received_files() == []


@BED
def test_it_sends_files_and_a_text_to_huddle_receive_which_keeps_them_beside_existing_ones(
        testbed, localsend_second, homes):
    """Huddle receives first; the package, started next, is answered by Huddle's POST /register and lists it. Its
    one-shot sender (asking /api/localsend/v1/info first, chunked uploads, no SHA-256, no client certificate)
    offers notes.txt: shown as a LocalSend offer from ls-b with no proven fingerprint, kept byte-identical as
    "notes (2).txt" beside the notes.txt already there, which stays as it was. A second offer of three files
    uploaded at once (with SHA-256; a non-ASCII name, an empty file) arrives identical too; a text is shown (204,
    which the package's client takes for an error)."""
    a, b = testbed.hosts
    inbox = homes("inbox")
    with open(os.path.join(inbox, "notes.txt"), "w") as f:
        f.write("already here")
    receiver = spawn(a, homes("a"), "receive", "--dir", inbox, "--yes", "--count", "5", "--json", "--name", "Ada",
                     stdin=True)
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    second = localsend_second(b, "ls-b")
    seen = second.wait_device("Ada", timeout=15)
    assert (seen["host"], seen["deviceModel"], seen["announce"]) == (a.ipv4, "Huddle", False), seen

    files = homes("files")
    notes, notes_digest = random_file(files, "notes.txt", 50_000)
    offer, out = answered(receiver, lambda: second.send(a.ipv4, [notes], port=seen["port"]))
    assert (out.ok, out.result) == (True, "sent"), (out, out.output)
    assert out.of("target")[0]["fingerprint"] == seen["fingerprint"]
    assert (offer["protocol"], offer["from"], offer["name"], offer["size"], offer["files"]) == \
        ("LocalSend", "ls-b", "notes.txt", 50_000, 1), offer
    # Its client shows no certificate: nothing proves the fingerprint it claims.
    assert offer["fingerprint"] == "", offer
    got = receiver.wait_event(lambda e: e.get("event") == "received", 10)
    assert got["path"] == os.path.join(os.path.realpath(inbox), "notes (2).txt"), got
    assert sha256(got["path"]) == notes_digest
    with open(os.path.join(inbox, "notes.txt")) as f:
        assert f.read() == "already here"

    one, one_digest = random_file(files, "one.bin", 2_000_000)
    two, two_digest = random_file(files, "naïve ✓ two.bin", 20_000)
    empty, empty_digest = random_file(files, "empty.bin", 0)
    start = receiver.mark()
    offer, many = answered(receiver, lambda: second.send(a.ipv4, [one, two, empty], port=seen["port"], sha256=True),
                           start)
    assert (many.ok, many.result) == (True, "sent"), (many, many.output)
    assert sorted((e["fileName"], e["ok"]) for e in many.of("uploaded")) == \
        [("empty.bin", True), ("naïve ✓ two.bin", True), ("one.bin", True)]
    assert (offer["files"], offer["size"]) == (3, 2_020_000), offer
    assert sorted(offer["names"]) == ["empty.bin", "naïve ✓ two.bin", "one.bin"], offer
    for name, digest in (("one.bin", one_digest), ("naïve ✓ two.bin", two_digest), ("empty.bin", empty_digest)):
        path = os.path.join(os.path.realpath(inbox), name)
        receiver.wait_event(lambda e: e.get("event") == "received" and e.get("path") == path, 15, start)
        assert sha256(path) == digest

    text = "a text from the second peer ✓"
    # A text is asked about like files (its sender shows no certificate), then shown: 204.
    asked, said = answered(receiver, lambda: second.send(a.ipv4, text=text, port=seen["port"]))
    assert (asked["text"], asked["from"], asked["fingerprint"]) == (True, "ls-b", ""), asked
    assert (said.ok, said.result, said.status) == (True, "shown", 204), (said, said.output)
    shown = receiver.wait_event(lambda e: e.get("event") == "text", 10)
    assert (shown["text"], shown["from"], shown["protocol"]) == (text, "ls-b", "LocalSend"), shown
    assert receiver.wait_exit(15) == 0, receiver.output()
    assert sorted(os.listdir(inbox)) == ["empty.bin", "naïve ✓ two.bin", "notes (2).txt", "notes.txt", "one.bin"]


@BED
def test_huddle_send_to_it_over_plain_http_only_when_allowed(testbed, localsend_second, homes):
    """The package without encryption announces protocol http and a random fingerprint. `huddle send` refuses it
    and sends nothing unless --allow-plain-http; with it the file arrives byte-identical."""
    a, b = testbed.hosts
    second = localsend_second(b, "ls-b", encryption=False)
    home = homes("a")
    path, digest = random_file(homes("files"), "plain.bin", 40_000)
    refused = spawn(a, home, "send", path, "--to", "ls-b", "--name", "Ada", "--wait", "20", merge_stderr=True)
    assert refused.wait_exit(30) not in (None, 0), refused.output()
    assert any(line.startswith("huddle: ls-b: ls-b speaks plain HTTP") for _, line in refused.lines), \
        refused.output()
    assert second.received_files() == []
    allowed = spawn(a, home, "send", path, "--to", "ls-b", "--name", "Ada", "--wait", "20", "--allow-plain-http")
    allowed.wait_line(lambda l: l.startswith("sent plain.bin to ls-b"), 30)
    assert allowed.wait_exit(15) == 0, allowed.output()
    offer = second.wait_offer("plain.bin", timeout=10)
    assert (offer["from"], offer["sha256"], offer["size"]) == ("Ada", digest, 40_000), offer
    assert sha256(second.wait_received("plain.bin", timeout=10)["path"]) == digest


@BED
def test_a_file_from_it_whose_sha256_is_wrong_is_refused_and_nothing_is_kept(testbed, localsend_second, homes):
    """The package offers a file with a SHA-256 that is not its content's: `huddle receive` takes the upload,
    refuses it (400, the reason said) and keeps nothing, not even a partial file; the package's /cancel that follows
    finds the session already over (403). The same file offered again with its true SHA-256 arrives identical."""
    a, b = testbed.hosts
    inbox = homes("inbox")
    receiver = spawn(a, homes("a"), "receive", "--dir", inbox, "--yes", "--count", "1", "--json", "--name", "Ada",
                     stdin=True)
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    second = localsend_second(b, "ls-b", receive=False)
    path, digest = random_file(homes("files"), "checked.bin", 300_000)
    _, bad = answered(receiver, lambda: second.send(a.ipv4, [path], wrong_sha256=True))
    assert (bad.ok, bad.result, bad.status) == (False, "failed", 400), (bad, bad.output)
    assert [e["status"] for e in bad.of("cancel")] == [403], bad.output
    failed = receiver.wait_event(lambda e: e.get("event") == "failed", 10)
    assert failed["error"] == ("checked.bin from ls-b: the transfer failed: checked.bin: the SHA-256 does not match "
                               "the sender's; nothing kept"), failed
    assert os.listdir(inbox) == []
    _, good = answered(receiver, lambda: second.send(a.ipv4, [path], sha256=True))
    assert (good.ok, good.result) == (True, "sent"), (good, good.output)
    got = receiver.wait_event(lambda e: e.get("event") == "received", 10)
    assert got["path"] == os.path.join(os.path.realpath(inbox), "checked.bin"), got
    assert sha256(got["path"]) == digest
    assert receiver.wait_exit(15) == 0, receiver.output()
    assert os.listdir(inbox) == ["checked.bin"]
