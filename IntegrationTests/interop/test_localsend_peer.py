"""Self-tests of the LocalSend peer fixture (localsend_peer.py): two localsendd in two test hosts
find each other by multicast, send a file over HTTPS byte-identical, and honour a PIN.

No Huddle involved: these prove the fixture and the bed (default route, multicast on the bridge),
so a failing Huddle LocalSend test points at Huddle.
"""

import os
import secrets
import threading

import pytest

from localsend_peer import (FINGERPRINT_RE, PORT, cert_fingerprint, https_info, plain_ip,
                            sha256_file)

BED = pytest.mark.hosts(2, default_route=True)


def random_file(testbed, name: str, size: int) -> str:
    """A file of size random bytes in the bed's directory (outside every peer's directory)."""
    path = os.path.join(testbed.tmpdir, name)
    with open(path, "wb") as f:
        f.write(secrets.token_bytes(size))
    return path


class ThreadedSend:
    """peer.send(...) on a thread of its own, for a receiver that must answer meanwhile."""

    def __init__(self, peer, path: str, to: str):
        self._out: list = []
        self._thread = threading.Thread(target=lambda: self._out.append(peer.send(path, to)),
                                        daemon=True)

    def __enter__(self) -> "ThreadedSend":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._thread.join(timeout=40)

    def result(self, timeout: float):
        """The SendResult, once the send has ended (bounded)."""
        self._thread.join(timeout)
        assert self._out, f"send did not end within {timeout}s"
        return self._out[0]


@BED
def test_two_peers_find_each_other(testbed, localsendd):
    """Each lists the other with its alias, its IPv4 and the fingerprint it announces: SHA-256 of
    its certificate in uppercase hex (64 characters), the one its HTTPS listener presents and its
    /info states."""
    a, b = testbed.hosts
    peer_a, peer_b = localsendd(a, "ld-a"), localsendd(b, "ld-b")
    for peer in (peer_a, peer_b):
        assert FINGERPRINT_RE.fullmatch(peer.fingerprint), peer.fingerprint
        assert peer.fingerprint == cert_fingerprint(peer.cert_file)
        assert (peer.port, peer.protocol) == (PORT, "https")
    assert peer_a.fingerprint != peer_b.fingerprint
    for me, other, other_host in ((peer_a, peer_b, b), (peer_b, peer_a, a)):
        seen = me.wait_device(other.alias, timeout=10)
        assert (seen["alias"], plain_ip(seen["ip"]), seen["fingerprint"]) == \
            (other.alias, other_host.ipv4, other.fingerprint), seen
        assert (seen["port"], seen["protocol"], seen["download"]) == (PORT, "https", True), seen
        assert [d["alias"] for d in me.devices()] == [other.alias]
        got = https_info(me.host, other.address, other.port)
        assert got.status == 200, got
        assert got.cert_fingerprint == other.fingerprint, got
        assert {k: got.info[k] for k in ("alias", "version", "fingerprint", "port", "protocol")} \
            == {"alias": other.alias, "version": "2.2", "fingerprint": other.fingerprint,
                "port": PORT, "protocol": "https"}, got


@BED
def test_file_arrives_byte_identical(testbed, localsendd):
    """100 kB of random bytes sent a -> b over HTTPS arrive with the same SHA-256, under their
    own name, and b records the transfer as received from a."""
    a, b = testbed.hosts
    peer_a, peer_b = localsendd(a, "ld-a"), localsendd(b, "ld-b")
    peer_a.wait_device("ld-b")
    path = random_file(testbed, "random-100k.bin", 100_000)
    res = peer_a.send(path, "ld-b", timeout=30)
    assert (res.ok, res.kind, res.code, res.rc) == (True, "sent", None, 0), res
    got = peer_b.wait_file("random-100k.bin", timeout=10, size=100_000)
    assert sha256_file(got) == sha256_file(path)
    assert peer_b.received_files() == ["random-100k.bin"]
    result = peer_b.status()["result"]
    assert (result["kind"], result["peer"], result["files"]) == \
        ("received", "ld-a", [{"fileName": "random-100k.bin"}]), result


@BED
def test_pin_is_required(testbed, localsendd):
    """b requires a PIN: a send without it and one with a wrong PIN fail with pin_required (HTTP
    401) and leave nothing behind; with the PIN the file arrives identical."""
    a, b = testbed.hosts
    pin = f"{secrets.randbelow(10 ** 6):06d}"
    wrong = f"{(int(pin) + 1) % 10 ** 6:06d}"
    peer_a, peer_b = localsendd(a, "ld-a"), localsendd(b, "ld-b", pin=pin)
    assert peer_b.status()["self"]["pinRequired"] is True
    peer_a.wait_device("ld-b")
    path = random_file(testbed, "secret.bin", 20_000)
    for given in (None, wrong):
        res = peer_a.send(path, "ld-b", pin=given)
        assert (res.ok, res.kind, res.code, res.rc) == (False, "pin_required", 401, 1), res
        assert res.detail == "ld-b requires a PIN.", res
    assert peer_b.received_files() == []
    res = peer_a.send(path, "ld-b", pin=pin)
    assert (res.ok, res.kind) == (True, "sent"), res
    assert sha256_file(peer_b.wait_file("secret.bin", timeout=10, size=20_000)) == \
        sha256_file(path)


@BED
def test_attended_peer_asks_and_a_plain_http_sender(testbed, localsendd):
    """b attended (unattended=False): an incoming transfer waits for an answer; rejected, the
    sender gets declined (403); accepted, the file arrives. a runs without encryption: it serves
    /info over plain HTTP and announces a random 32-character lowercase fingerprint."""
    a, b = testbed.hosts
    peer_a = localsendd(a, "ld-a", encryption=False)
    peer_b = localsendd(b, "ld-b", unattended=False)
    assert peer_a.protocol == "http" and len(peer_a.fingerprint) == 32
    assert peer_a.fingerprint == peer_a.fingerprint.lower()
    info = https_info(b, a.ipv4, scheme="http")
    assert (info.status, info.info["protocol"], info.info["fingerprint"], info.cert_fingerprint) \
        == (200, "http", peer_a.fingerprint, None), info
    assert plain_ip(peer_b.wait_device("ld-a")["ip"]) == a.ipv4
    peer_a.wait_device("ld-b")
    path = random_file(testbed, "asked.txt", 1_000)
    for answer in ("reject", "accept"):
        with ThreadedSend(peer_a, path, "ld-b") as sending:
            incoming = peer_b.wait_incoming(timeout=10)
            assert (incoming["from"], incoming["fileCount"], incoming["files"]) == \
                ("ld-a", 1, [{"fileName": "asked.txt", "size": 1_000}]), incoming
            said = getattr(peer_b, answer)(incoming["sessionId"])
            res = sending.result(timeout=15)
        if answer == "reject":
            assert said == "Rejected."
            assert (res.kind, res.code) == ("declined", 403), res
            assert peer_b.received_files() == []
        else:
            assert said == "Accepted."
            assert res.ok, res
            got = peer_b.wait_file("asked.txt", timeout=10, size=1_000)
            assert sha256_file(got) == sha256_file(path)

