"""Self-tests of the KDE Connect peer fixture (kdeconnect_peer.py): two real kdeconnectd (Debian's
kdeconnect 22.12) in two test hosts find each other by UDP broadcast, pair over TLS (both show
the same verification key), share a file byte-identical and a text exactly, and (full tier) sync
their clipboards under Xvfb.

No Huddle involved: these prove the fixture and the bed (default route, broadcast on the
bridge), so a failing Huddle KDE Connect test points at Huddle.
"""

import os
import secrets

import pytest

from kdeconnect_peer import (ID_RE, PROTOCOL_VERSION, cert_sha256, parse_encryption_info,
                             sha256_file, verification_key)

BED = pytest.mark.hosts(2, default_route=True)
# SHA-256 of nothing: what encryptionInfo shows for a peer's certificate before pairing.
NO_CERT = ":".join(f"{b:02x}" for b in bytes.fromhex(
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))


def random_file(testbed, name: str, size: int) -> str:
    """A file of size random bytes in the bed's directory (outside every peer's directory)."""
    path = os.path.join(testbed.tmpdir, name)
    with open(path, "wb") as f:
        f.write(secrets.token_bytes(size))
    return path


def pair(kc_a, kc_b) -> None:
    """kc_a asks kc_b to pair, kc_b accepts; both report it paired."""
    kc_a.wait_device(kc_b.name)
    kc_b.wait_device(kc_a.name)
    kc_a.request_pair(kc_b.id)
    assert kc_b.wait_pair_request(timeout=10) == kc_a.id
    kc_b.accept_pair(kc_a.id)
    kc_a.wait_paired(kc_b.id, timeout=10)
    kc_b.wait_paired(kc_a.id, timeout=10)


@BED
def test_two_daemons_find_each_other(testbed, kdeconnect):
    """Each lists the other by id and announced name, reachable and not paired. The later
    daemon's broadcast is answered by the earlier one, which connects over TCP, sends its
    identity first (protocol 7) and then acts as the TLS server; the announcer is the TLS
    client."""
    a, b = testbed.hosts
    kc_a = kdeconnect(a, "kc-a")
    kc_b = kdeconnect(b, "kc-b")
    assert ID_RE.fullmatch(kc_a.id) and ID_RE.fullmatch(kc_b.id) and kc_a.id != kc_b.id
    for me, other in ((kc_a, kc_b), (kc_b, kc_a)):
        seen = me.wait_device(other.name, timeout=10)
        assert seen == {"id": other.id, "name": other.name, "type": "desktop", "reachable": True,
                        "paired": False, "pairing_requested": False}, seen
        assert me.devices() == [seen]
        assert me.devices(paired_only=True) == []
    # The identity kc-a sent over the new TCP connection, as kc-b logged it.
    identities = kc_b.identities()
    assert len(identities) == 1, identities
    ident = identities[0]
    assert ident["type"] == "kdeconnect.identity" and isinstance(ident["id"], str), ident
    body = ident["body"]
    assert {k: body[k] for k in ("deviceId", "deviceName", "deviceType", "protocolVersion")} == \
        {"deviceId": kc_a.id, "deviceName": "kc-a", "deviceType": "desktop",
         "protocolVersion": PROTOCOL_VERSION}, body
    for caps in ("incomingCapabilities", "outgoingCapabilities"):
        assert {"kdeconnect.share.request", "kdeconnect.clipboard", "kdeconnect.ping",
                "kdeconnect.clipboard.connect"} <= set(body[caps]), body[caps]
    assert kc_a.identities() == []
    assert any("TCP connection done (i'm the existing device)" in line for line in kc_a.log)
    assert any("Starting server ssl (I'm the client TCP socket)" in line for line in kc_a.log)
    assert any("Starting client ssl (but I'm the server TCP socket)" in line for line in kc_b.log)


@BED
def test_pairing_shows_one_verification_key(testbed, kdeconnect):
    """kc-a asks, kc-b is notified with the first 8 digits of the verification key, accepts, and
    both report each other paired. Both compute the same 64-digit key, before and after, from
    the two certificates' public keys. Their encryption info is per side: own and remote
    fingerprints, mirrored, the remote one real only once paired; each stores the other's
    certificate."""
    a, b = testbed.hosts
    kc_a = kdeconnect(a, "kc-a")
    kc_b = kdeconnect(b, "kc-b")
    kc_a.wait_device("kc-b")
    kc_b.wait_device("kc-a")
    key = verification_key(kc_a.cert_file, kc_b.cert_file)
    assert kc_a.verification_key(kc_b.id) == kc_b.verification_key(kc_a.id) == key
    assert parse_encryption_info(kc_a.encryption_info(kc_b.id)) == \
        {"own": kc_a.own_fingerprint(), "remote": NO_CERT}
    kc_a.request_pair(kc_b.id)
    assert kc_b.wait_pair_request(timeout=10) == kc_a.id
    assert kc_b.device(kc_a.id)["pairing_requested"] is True
    shown = kc_b.wait_notification(lambda n: "Pairing request" in n["body"], timeout=10)
    assert shown["body"] == f"Pairing request from kc-a Key: {key[:8]}...", shown
    kc_b.accept_pair(kc_a.id)
    kc_a.wait_paired(kc_b.id, timeout=10)
    kc_b.wait_paired(kc_a.id, timeout=10)
    assert kc_b.pairing_requests() == []
    for me, other in ((kc_a, kc_b), (kc_b, kc_a)):
        assert [d["id"] for d in me.devices(paired_only=True)] == [other.id]
        assert me.verification_key(other.id) == key
        info = parse_encryption_info(me.encryption_info(other.id))
        assert info == {"own": cert_sha256(me.cert_file), "remote": cert_sha256(other.cert_file)}
        with open(os.path.join(me.config_dir, "kdeconnect", "trusted_devices")) as f:
            trusted = f.read()
        assert f"[{other.id}]" in trusted
        with open(other.cert_file) as f:
            pem = f.read()
        assert pem.strip().replace("\n", "\\n") in trusted
    assert kc_a.own_fingerprint() != kc_b.own_fingerprint()


@BED
def test_file_arrives_byte_identical(testbed, kdeconnect):
    """100 kB of random bytes shared kc-a -> kc-b land in kc-b's Downloads under their name with
    the same SHA-256 (written as .part, then renamed)."""
    a, b = testbed.hosts
    kc_a = kdeconnect(a, "kc-a")
    kc_b = kdeconnect(b, "kc-b")
    pair(kc_a, kc_b)
    path = random_file(testbed, "random-100k.bin", 100_000)
    kc_a.share_file(path, kc_b.id)
    got = kc_b.wait_file("random-100k.bin", timeout=20, size=100_000)
    assert sha256_file(got) == sha256_file(path)
    assert kc_b.received_files() == ["random-100k.bin"]
    assert kc_b.shares() == [{"device": kc_a.id, "path": got, "text": False}]
    assert kc_a.received_files() == [] and kc_a.shares() == []
    kc_b.wait_log(lambda line: "File transfer finished" in line and "random-100k.bin" in line,
                  timeout=10)


@BED
def test_text_arrives_exactly(testbed, kdeconnect):
    """A text shared kc-b -> kc-a (non-ASCII, inner and trailing newline, leading and trailing
    spaces) is captured with exactly that content; a second one after it, in order."""
    a, b = testbed.hosts
    kc_a = kdeconnect(a, "kc-a")
    kc_b = kdeconnect(b, "kc-b")
    pair(kc_a, kc_b)
    text = f"  Grüße aus kc-b ✓ {secrets.token_hex(4)}\nzweite Zeile\t \n"
    kc_b.share_text(text, kc_a.id)
    assert kc_a.wait_text(timeout=10) == text
    kc_b.share_text("second", kc_a.id)
    kc_a.wait_text("second", timeout=10)
    assert kc_a.received_texts() == [text, "second"]
    assert [(s["device"], s["text"]) for s in kc_a.shares()] == [(kc_b.id, True)] * 2
    assert all(os.path.basename(s["path"]).startswith("kdeconnect-") for s in kc_a.shares())
    assert kc_b.received_texts() == [] and kc_a.received_files() == []


@pytest.mark.full
@BED
def test_clipboard_syncs_both_ways_under_xvfb(testbed, kdeconnect):
    """Each daemon under its own Xvfb (QT_QPA_PLATFORM=xcb): text copied on kc-a's display
    appears on kc-b's, then the reverse, three rounds. A shared text is then opened with
    xdg-open (the stub) as a file of kdeconnectd's working directory."""
    a, b = testbed.hosts
    kc_a = kdeconnect(a, "kc-a", display=True)
    kc_b = kdeconnect(b, "kc-b", display=True)
    assert kc_a.display != kc_b.display
    pair(kc_a, kc_b)
    for i in range(3):
        text = f"from kc-a {i} ✓ {secrets.token_hex(4)}"
        kc_a.clipboard_set(text)
        kc_b.wait_clipboard(text, timeout=15)
        text = f"from kc-b {i} ✓ {secrets.token_hex(4)}"
        kc_b.clipboard_set(text)
        kc_a.wait_clipboard(text, timeout=15)
    kc_b.share_text("open me", kc_a.id)
    assert kc_a.wait_text(timeout=10) == "open me"
    opened = kc_a.wait_opened(timeout=10)
    assert opened["content"] == "open me", opened
    assert os.path.dirname(opened["path"]) == kc_a.text_dir, opened
    assert opened["arg"] == f"file://{opened['path']}", opened
