"""Huddle and KDE Connect: Debian's kdeconnectd (protocol 7) in another test host finds Huddle, pairs with it with
the same verification key on both sides, texts go both ways, and its files arrive.

Smoke tier: pairing and one text each way.
"""

from __future__ import annotations

import os

import pytest

from huddle_cli import huddle_bin

BED = pytest.mark.hosts(2, default_route=True)


def spawn(host, home: str, *args: str, stdin: bool = False):
    """huddle ARGS in host, with its own data directory, on the test link."""
    env = dict(os.environ, HUDDLE_HOME=home)
    argv = [huddle_bin(), *args, "--host", f"huddle-{host.letter}", "--interface", host.ifname]
    return host.testbed.track(host.spawn(*argv, label=f"{host.letter}:{args[0]}", env=env, stdin=stdin))


@BED
def test_kdeconnect_pairs_with_huddle_by_the_same_key_and_texts_go_both_ways(testbed, kdeconnect, homes):
    """kc-b asks Huddle's receive to pair: Huddle shows the verification key kc-b computes (first 8 hex digits);
    with --yes it pairs (pinned on first use). kc-b's text arrives exactly; then a new Huddle process with the same
    data directory is still paired and its text reaches kc-b."""
    a, b = testbed.hosts
    kc = kdeconnect(b, "kc-b")
    home = homes("a")
    receiver = spawn(a, home, "receive", "--dir", homes("inbox"), "--yes", "--json", "--count", "1",
                     "--name", "Ada")
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    ada = kc.wait_device("Ada", timeout=20)
    kc.request_pair(ada["id"])
    request = receiver.wait_event(lambda e: e.get("event") == "pairRequest", 20)
    assert (request["from"], request["protocol"]) == ("kc-b", "KDE Connect"), request
    assert request["verificationKey"] == kc.verification_key(ada["id"])[:8], request
    kc.wait_paired(ada["id"], timeout=20)
    paired = receiver.wait_event(lambda e: e.get("event") == "paired", 10)
    assert paired["fingerprint"], paired

    kc.share_text("héllo\tfrom KDE\n", ada["id"])
    text = receiver.wait_event(lambda e: e.get("event") == "text", 20)
    assert (text["text"], text["from"], text["protocol"]) == ("héllo\tfrom KDE\n", "kc-b", "KDE Connect"), text
    assert receiver.wait_exit(15) == 0, receiver.output()

    sender = spawn(a, home, "send", "--text", "hello from Huddle", "--to", "kc-b", "--name", "Ada")
    sender.wait_line(lambda l: l.startswith("sent the text to kc-b (KDE Connect, fingerprint "), 30)
    assert sender.wait_exit(15) == 0, sender.output()
    assert kc.wait_text("hello from Huddle", timeout=15) == "hello from Huddle"


def pair(kc, receiver, name: str = "Ada") -> str:
    """kc asks the Huddle receiver (run with --yes) to pair; its device id for that Huddle, once paired."""
    device = kc.wait_device(name, timeout=20)
    kc.request_pair(device["id"])
    receiver.wait_event(lambda e: e.get("event") == "paired", 20)
    kc.wait_paired(device["id"], timeout=20)
    return device["id"]


@BED
def test_files_go_both_ways_byte_identical_and_a_taken_name_is_kept(testbed, kdeconnect, homes):
    """A 300 kB file shared by kc-b is asked about (KDE Connect, its size), kept as "name (2)" beside the file
    already there, byte-identical; then `huddle send FILE --to kc-b` arrives in kc-b's Downloads byte-identical."""
    import hashlib
    import secrets
    a, b = testbed.hosts
    kc = kdeconnect(b, "kc-b")
    home, inbox, files = homes("a"), homes("inbox"), homes("files")
    with open(os.path.join(inbox, "photo.jpg"), "w") as f:
        f.write("already here")
    receiver = spawn(a, home, "receive", "--dir", inbox, "--yes", "--json", "--count", "1", "--name", "Ada")
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    ada = pair(kc, receiver)
    incoming = os.path.join(files, "photo.jpg")
    data = secrets.token_bytes(300_000)
    with open(incoming, "wb") as f:
        f.write(data)
    kc.share_file(incoming, ada)
    offer = receiver.wait_event(lambda e: e.get("event") == "offer", 20)
    assert (offer["protocol"], offer["from"], offer["name"], offer["size"]) == \
        ("KDE Connect", "kc-b", "photo.jpg", 300_000), offer
    got = receiver.wait_event(lambda e: e.get("event") == "received", 20)
    assert got["path"] == os.path.join(os.path.realpath(inbox), "photo (2).jpg"), got
    with open(got["path"], "rb") as f:
        assert f.read() == data
    with open(os.path.join(inbox, "photo.jpg")) as f:
        assert f.read() == "already here"
    assert receiver.wait_exit(15) == 0, receiver.output()

    outgoing = os.path.join(files, "notes.bin")
    sent = secrets.token_bytes(500_000)
    with open(outgoing, "wb") as f:
        f.write(sent)
    sender = spawn(a, home, "send", outgoing, "--to", "kc-b", "--name", "Ada")
    arrived = kc.wait_file("notes.bin", timeout=20, size=500_000)
    with open(arrived, "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == hashlib.sha256(sent).hexdigest()
    sender.wait_line(lambda l: l.startswith("sent notes.bin to kc-b (KDE Connect, fingerprint "), 30)
    assert sender.wait_exit(15) == 0, sender.output()



@BED
def test_a_text_from_kdeconnect_goes_on_the_clipboard_with_receive_clipboard(testbed, kdeconnect, homes):
    """`huddle receive --clipboard` (Xvfb): a text kc-b shares is printed and put on the clipboard, where xclip
    reads it back exactly."""
    from xdisplay import XDisplay
    a, b = testbed.hosts
    display = XDisplay()
    try:
        kc = kdeconnect(b, "kc-b")
        env = dict(display.env(), HUDDLE_HOME=homes("a"))
        argv = [huddle_bin(), "receive", "--dir", homes("inbox"), "--yes", "--json", "--count", "1", "--clipboard",
                "--name", "Ada", "--host", "huddle-a", "--interface", a.ifname]
        receiver = testbed.track(a.spawn(*argv, label="a:receive", env=env))
        receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
        pair(kc, receiver)
        kc.share_text("pasted from KDE ✓", kc.wait_device("Ada")["id"])
        receiver.wait_event(lambda e: e.get("event") == "clipboard", 20)
        display.wait_for("pasted from KDE ✓".encode(), timeout=10)
        assert display.paste() == "pasted from KDE ✓".encode()
        assert receiver.wait_exit(15) == 0, receiver.output()
    finally:
        display.stop()


@pytest.mark.full
@BED
def test_huddle_peers_lists_a_kdeconnect_device_and_answers_its_pairing_request(testbed, kdeconnect, homes):
    """`huddle peers --json --yes` lists kc-b with its protocol and fingerprint, unpinned and not verified; kc-b's
    pairing request is asked about with the key kc-b shows, and (--yes) paired on both sides."""
    a, b = testbed.hosts
    kc = kdeconnect(b, "kc-b")
    peers = spawn(a, homes("a"), "peers", "--json", "--yes", "--no-localsend", "--name", "Ada", stdin=True)
    found = peers.wait_event(lambda e: e.get("event") == "found" and e.get("name") == "kc-b", 30)
    assert (found["protocol"], found["trust"], found["verified"]) == ("KDE Connect", "unpinned", False), found
    assert found["fingerprint"] == kc.own_fingerprint().replace(":", "").upper(), found
    ada = kc.wait_device("Ada", timeout=20)
    kc.request_pair(ada["id"])
    request = peers.wait_event(lambda e: e.get("event") == "pairRequest", 20)
    assert (request["from"], request["verificationKey"]) == ("kc-b", kc.verification_key(ada["id"])[:8]), request
    peers.wait_event(lambda e: e.get("event") == "paired" and e.get("name") == "kc-b", 20)
    kc.wait_paired(ada["id"], timeout=20)
    peers.send("/quit")
    assert peers.wait_exit(15) == 0, peers.output()
