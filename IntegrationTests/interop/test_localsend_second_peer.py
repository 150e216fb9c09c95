"""Self-tests of the second LocalSend peer (localsend_second_peer.py: the `localsend` Python
package, protocol v2.1) against localsendd (localsend_peer.py) and itself, no Huddle: each in its
own test host, they find each other and files go both ways byte-identical, so a failure of a
Huddle test against it is Huddle's. Full tier (the package needs the Python 3.12 venv
scripts/test --full makes).
"""

from __future__ import annotations

import os

import pytest

from localsend_peer import PORT, https_info, plain_ip
from localsend_second_peer import FINGERPRINT_RE, cert_fingerprint, sha256_file
from test_localsend_peer import random_file

pytestmark = pytest.mark.full
BED = pytest.mark.hosts(2, default_route=True)


@BED
def test_it_and_localsendd_find_each_other(testbed, localsendd, localsend_second):
    """It announces once at start and answers every multicast message with POST /register:
    localsendd, started after it, lists it with its alias, address and the fingerprint of the
    certificate it serves; it hears localsendd's announcements (announce true) with localsendd's
    fingerprint. Its /info is version 2.1, device type headless, device model null."""
    a, b = testbed.hosts
    second = localsend_second(b, "ls-b")
    assert FINGERPRINT_RE.fullmatch(second.fingerprint), second.fingerprint
    assert second.fingerprint == cert_fingerprint(second.cert_file)
    peer = localsendd(a, "ld-a")
    seen = peer.wait_device("ls-b", timeout=15)
    assert (plain_ip(seen["ip"]), seen["fingerprint"], seen["port"], seen["protocol"]) == \
        (b.ipv4, second.fingerprint, PORT, "https"), seen
    heard = second.wait_device(lambda e: e["alias"] == "ld-a" and e["announce"], timeout=15)
    assert (heard["host"], heard["fingerprint"], heard["version"], heard["port"],
            heard["protocol"]) == (a.ipv4, peer.fingerprint, "2.2", PORT, "https"), heard
    assert [d["alias"] for d in second.devices()] == ["ld-a"]
    served = https_info(a, b.ipv4)
    assert served.status == 200, served
    assert served.cert_fingerprint == second.fingerprint, served
    assert {k: served.info.get(k) for k in ("alias", "version", "fingerprint", "deviceModel",
                                            "deviceType", "port", "protocol")} == \
        {"alias": "ls-b", "version": "2.1", "fingerprint": second.fingerprint,
         "deviceModel": None, "deviceType": "headless", "port": PORT, "protocol": "https"}, served
    assert not any("Stopped receiving" in m for m in second.log_messages()), second.output()


@BED
def test_files_go_both_ways_with_localsendd_byte_identical(testbed, localsendd, localsend_second):
    """localsendd -> it: 100 kB arrive identical, offered with localsendd's SHA-256. It ->
    localsendd (its one-shot sender, chunked uploads): identical, once its /v1/info check is off;
    with the check on, the package asks /api/localsend/v1/info, which localsendd does not serve
    (404), and sends nothing."""
    a, b = testbed.hosts
    second = localsend_second(b, "ls-b")
    peer = localsendd(a, "ld-a")
    peer.wait_device("ls-b", timeout=15)
    inbound = random_file(testbed, "to-second.bin", 100_000)
    res = peer.send(inbound, "ls-b", timeout=30)
    assert (res.ok, res.kind) == (True, "sent"), res
    offer = second.wait_offer("to-second.bin", timeout=10)
    assert (offer["from"], offer["fromFingerprint"], offer["host"], offer["size"],
            offer["sha256"], offer["accepted"]) == \
        ("ld-a", peer.fingerprint, a.ipv4, 100_000, sha256_file(inbound), True), offer
    got = second.wait_received("to-second.bin", timeout=10)
    assert (got["size"], got["sha256"]) == (100_000, sha256_file(inbound)), got
    assert sha256_file(got["path"]) == sha256_file(inbound)
    assert second.received_files() == ["to-second.bin"]

    outbound = random_file(testbed, "to-localsendd.bin", 150_000)
    checked = second.send(a.ipv4, [outbound])
    assert (checked.ok, checked.result, checked.status) == (False, "failed", 404), checked
    assert peer.received_files() == []
    sent = second.send(a.ipv4, [outbound], check_device=False)
    assert (sent.ok, sent.result) == (True, "sent"), (sent, sent.output)
    assert [(e["fileName"], e["ok"]) for e in sent.of("uploaded")] == [("to-localsendd.bin", True)]
    assert sent.of("target")[0]["fingerprint"] == peer.fingerprint
    received = peer.wait_file("to-localsendd.bin", timeout=10, size=150_000)
    assert sha256_file(received) == sha256_file(outbound)
    result = peer.status()["result"]
    assert (result["kind"], result["peer"]) == ("received", "ls-b"), result


@BED
def test_it_to_itself_over_plain_http_files_and_a_text(testbed, localsend_second):
    """Two of it, plain HTTP: they find each other; two files (one empty) arrive identical, each
    offered with the SHA-256 given; a text goes as one text/plain file whose preview is the text,
    and its bytes are the text. A receiver that declines everything answers 403."""
    a, b = testbed.hosts
    receiver = localsend_second(b, "ls-b", encryption=False)
    assert (receiver.protocol, len(receiver.fingerprint)) == ("http", 32), receiver.fingerprint
    sender = localsend_second(a, "ls-a", encryption=False)
    heard = receiver.wait_device("ls-a", timeout=15)
    assert (heard["host"], heard["fingerprint"], heard["protocol"]) == \
        (a.ipv4, sender.fingerprint, "http"), heard
    assert sender.wait_device("ls-b", timeout=15)["host"] == b.ipv4

    one = random_file(testbed, "one.bin", 70_000)
    empty = random_file(testbed, "empty.bin", 0)
    out = sender.send(b.ipv4, [one, empty], http=True, sha256=True)
    assert (out.ok, out.result) == (True, "sent"), (out, out.output)
    for path in (one, empty):
        name = os.path.basename(path)
        offer = receiver.wait_offer(name, timeout=10)
        assert (offer["size"], offer["sha256"]) == (os.path.getsize(path), sha256_file(path))
        got = receiver.wait_received(name, timeout=10)
        assert sha256_file(got["path"]) == sha256_file(path)
    text = "Grüße from the second peer ✓"
    said = sender.send(b.ipv4, text=text, text_name="note.txt", http=True)
    assert (said.ok, said.result) == (True, "sent"), (said, said.output)
    offer = receiver.wait_offer("note.txt", timeout=10)
    assert (offer["fileType"], offer["preview"], offer["size"]) == \
        ("text/plain", text, len(text.encode())), offer
    with open(receiver.wait_received("note.txt", timeout=10)["path"], encoding="utf-8") as f:
        assert f.read() == text
    assert receiver.received_files() == ["empty.bin", "note.txt", "one.bin"]

    refuser = localsend_second(a, "ls-no", encryption=False, receive=False)
    receiver.stop()
    declining = localsend_second(b, "ls-b2", encryption=False, decline=True)
    refused = refuser.send(b.ipv4, [one], http=True)
    assert (refused.ok, refused.result, refused.status) == (False, "declined", 403), refused
    assert declining.wait_offer("one.bin", timeout=10)["accepted"] is False
    assert declining.received_files() == []
