"""Issue 20 (first slice): peers that multicast cannot reach, by direct address (`--peer HOST[:PORT]`).

Two subnets joined by a router that forwards unicast but not multicast (testbed.py, `router=True`): Ada on
subnet 1, Bob on subnet 2. Only Ada is told where Bob is; she introduces herself there, finds him, and dials.
Each host has its own identity (HUDDLE_HOME): the namespaces share one file system.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess

import pytest

from huddle_cli import huddle_bin
import testbed as bed
from conftest import skip_or_fail
from test_huddle_chat import pair, trusted
from test_huddle_clip import clip, xdisplays  # noqa: F401 - xdisplays is a fixture used below

ROUTED = dict(subnets={"b": 2}, router=True)


def decode_qr(path: str) -> str:
    """The text of the QR code in the PNG at path, read by zbarimg (zbar-tools)."""
    if not shutil.which("zbarimg"):
        skip_or_fail("zbarimg (zbar-tools) is not installed")
    out = subprocess.run(["zbarimg", "--nodbus", "--raw", "-q", "-Sdisable", "-Sqrcode.enable", "-Sbinary", path],
                         capture_output=True, timeout=20, check=True).stdout
    return out.decode("utf-8").rstrip("\n")


def spawn(host, home: str, *args: str, stdin: bool = False, ready: str | None = None):
    """`huddle ARGS` in host with its own HUDDLE_HOME, host label and interface."""
    env = dict(os.environ, HUDDLE_HOME=home)
    argv = [huddle_bin(), *args, "--host", f"huddle-{host.letter}", "--interface", host.ifname]
    proc = host.spawn(*argv, label=f"{host.letter}:{args[0]}", stdin=stdin, env=env)
    if ready:
        proc.wait_line(lambda l: l.startswith(ready), 15)
    return proc


@pytest.mark.hosts(2, **ROUTED)
def test_chat_across_a_router_by_peer_address(testbed, huddle, homes):
    """Bob, on the other subnet, is found only through `--peer`; the code is compared as for a peer nearby and
    lines go both ways."""
    a, b = testbed[0], testbed[1]
    assert a.subnet != b.subnet
    bob = spawn(b, homes("b"), "chat", "--name", "Bob", stdin=True, ready="Chatting in")
    ada = spawn(a, homes("a"), "chat", "--name", "Ada", "--peer", b.ipv4, stdin=True, ready="Chatting in")
    ada.wait_line(lambda l: l.startswith("* Bob (")
                  and l.endswith(f"is here (dialled at {b.ipv4}:47474, not found nearby)"), 15)
    pair(ada, bob, "Ada", "Bob")
    ada.send("across the router")
    bob.wait_line(lambda l: l == "Ada: across the router", 5)
    bob.send("and back")
    ada.wait_line(lambda l: l == "Bob: and back", 5)
    # Bob never saw Ada by multicast: he learnt of her only when she connected.
    assert not any(l.startswith("* Ada (") and l.endswith("is here") for _, l in bob.lines[:5]), bob.output()


@pytest.mark.hosts(2, **ROUTED)
def test_an_address_that_does_not_answer_is_said_once_then_reached(testbed, huddle, homes):
    """Nothing listens at Bob's address yet: Ada says so once and keeps trying; when Bob starts there (on the
    port named with --port), she finds him."""
    a, b = testbed[0], testbed[1]
    ada = spawn(a, homes("a"), "chat", "--name", "Ada", "--yes", "--peer", f"{b.ipv4}:47999", stdin=True,
                ready="Chatting in")
    said = ada.wait_line(lambda l: l.startswith(f"! {b.ipv4}:47999: "), 15)
    assert said == f"! {b.ipv4}:47999: connection refused: nothing listens on that port (is Huddle running " \
        "there?); trying again", said
    bob = spawn(b, homes("b"), "chat", "--name", "Bob", "--yes", "--port", "47999", stdin=True, ready="Chatting in")
    ada.wait_line(lambda l: l == "* connected to Bob", 30)
    bob.wait_line(lambda l: l == "* connected to Ada", 10)
    told = [l for _, l in ada.lines if l.startswith(f"! {b.ipv4}:47999: ")]
    assert told == [said], told


@pytest.mark.hosts(2, **ROUTED)
def test_send_across_a_router_by_peer_address(testbed, huddle, homes):
    """`huddle send --peer` reaches a receiver on the other subnet; the file arrives verified and identical."""
    a, b = testbed[0], testbed[1]
    source = os.path.join(homes("files"), "notes.bin")
    data = os.urandom(3 << 20)
    with open(source, "wb") as f:
        f.write(data)
    inbox = homes("inbox")
    receiver = spawn(b, homes("b"), "receive", "--dir", inbox, "--yes", "--count", "1", "--name", "Bob",
                     ready="Receiving into")
    sender = spawn(a, homes("a"), "send", source, "--to", "Bob", "--yes", "--name", "Ada", "--peer", b.ipv4)
    sender.wait_line(lambda l: l == "sent notes.bin: verified by the receiver", 60)
    assert sender.wait_exit(20) == 0, sender.output()
    receiver.wait_line(lambda l: l.startswith("received "), 10)
    assert receiver.wait_exit(20) == 0, receiver.output()
    with open(os.path.join(inbox, "notes.bin"), "rb") as f:
        assert hashlib.sha256(f.read()).digest() == hashlib.sha256(data).digest()


@pytest.mark.hosts(2, **ROUTED)
def test_without_peer_address_the_other_subnet_stays_unseen(testbed, huddle, homes):
    """The control: with no --peer, multicast does not cross the router and Ada never finds Bob."""
    a, b = testbed[0], testbed[1]
    spawn(b, homes("b"), "chat", "--name", "Bob", stdin=True, ready="Chatting in")
    ada = spawn(a, homes("a"), "chat", "--name", "Ada", stdin=True, ready="Chatting in")
    # An absence can only be shown by waiting: 4 s is four of Ada's mDNS queries (RFC 6762 §5.2: 1 s, 2 s, ...)
    # and Bob's announcements.
    with pytest.raises(bed.TestbedError):
        ada.wait_line(lambda l: l.startswith("* Bob ("), 4)


@pytest.mark.hosts(2, **ROUTED)
def test_peers_adds_an_address_live_and_connects_by_number(testbed, huddle, homes):
    """`/peer HOST` typed into a running `huddle peers`: Bob is found there and connected by his number."""
    a, b = testbed[0], testbed[1]
    spawn(b, homes("b"), "chat", "--name", "Bob", "--yes", stdin=True, ready="Chatting in")
    ada = spawn(a, homes("a"), "peers", "--name", "Ada", "--yes", "--json", stdin=True)
    ada.send(f"/peer {b.ipv4}")
    ada.wait_line(lambda l: l == f"* looking for a peer at {b.ipv4}:47474", 10)
    found = ada.wait_event(lambda e: e.get("event") == "found" and e.get("name") == "Bob", 15)
    ada.send("1")
    ada.wait_event(lambda e: e.get("event") == "state" and e.get("peer") == found["peer"]
                   and e.get("state") == "connected", 20)
    ada.send(f"/peer {b.ipv4}:47474")
    ada.wait_line(lambda l: l == f"* already looking at {b.ipv4}:47474", 10)


@pytest.mark.hosts(3, subnets={"c": 2}, router=True)
def test_a_paired_device_that_moved_to_the_other_subnet_dials_where_it_last_reached_its_peer(testbed, huddle, homes):
    """Ada and Bob pair on one link (b); Bob's device then runs on the other subnet (c, the same data directory,
    as a laptop that moved). Nobody names an address: Bob looks where he last reached Ada, finds her device
    there, and both connect without a code."""
    a, b, c = testbed[0], testbed[1], testbed[2]
    assert a.subnet == b.subnet != c.subnet
    ada = spawn(a, homes("a"), "chat", "--name", "Ada", stdin=True, ready="Chatting in")
    bob = spawn(b, homes("b"), "chat", "--name", "Bob", stdin=True, ready="Chatting in")
    pair(ada, bob, "Ada", "Bob")
    bob.send("/quit")
    ada.wait_line(lambda l: l == "* Bob left the chat", 10)
    assert bob.wait_exit(10) == 0, bob.output()
    start = ada.mark()
    moved = spawn(c, homes("b"), "chat", "--name", "Bob", stdin=True, ready="Chatting in")
    moved.wait_line(lambda l: l.startswith("* Ada (") and l.endswith(f"is here (dialled at {a.ipv4}:47474, not found "
                                                                        "nearby)"), 15)
    moved.wait_line(lambda l: l == "* connected to Ada", 15)
    ada.wait_line(lambda l: l == "* connected to Bob", 15, start)
    assert not any("first contact" in l for _, l in moved.lines), moved.output()
    moved.send("hello from the other subnet")
    ada.wait_line(lambda l: l == "Bob: hello from the other subnet", 5, start)


@pytest.mark.hosts(2, **ROUTED)
def test_clip_sync_across_a_router_by_peer_address(testbed, huddle, homes, xdisplays):
    """`huddle clip sync --peer`: a copy on Ada's X display lands on Bob's, on the other subnet, and back."""
    a, b = testbed[0], testbed[1]
    x_ada, x_bob = xdisplays(), xdisplays()
    bob = clip(b, homes("b"), x_bob, "Bob", "sync", "--trust-on-first-use")
    ada = clip(a, homes("a"), x_ada, "Ada", "sync", "--trust-on-first-use", "--peer", b.ipv4)
    ada.wait_line(lambda l: l == "+ Bob connected", 30)
    bob.wait_line(lambda l: l == "+ Ada connected", 30)
    x_ada.copy("across the router ✓".encode())
    x_bob.wait_for("across the router ✓".encode(), "UTF8_STRING")
    x_bob.copy(b"and back")
    x_ada.wait_for(b"and back", "UTF8_STRING")


@pytest.mark.hosts(3, subnets={"b": 2, "c": 2}, router=True)
def test_a_pairing_link_pairs_across_the_router_once_and_the_pair_then_chats(testbed, huddle, homes):
    """`huddle pair` on Ada prints a link; `huddle pair LINK` on Bob, on the other subnet, pairs both as verified
    without a code. The link works once: Cy, using it when Ada's device answers there again, is refused with the
    reason. Then the two chat with no address given: Bob dials Ada where the link reached her."""
    a, b, c = testbed[0], testbed[1], testbed[2]
    image = os.path.join(homes("files"), "link.png")
    issuer = spawn(a, homes("a"), "pair", "--name", "Ada", "--png", image)
    link = issuer.wait_line(lambda l: l.startswith("huddle:pair?"), 15)
    assert f"a={a.ipv4}:47474" in link, link
    issuer.wait_line(lambda l: l == f"(QR code written to {image})", 10)
    # The PNG and the code drawn in the terminal both carry the link.
    assert decode_qr(image) == link
    drawn = [l for _, l in issuer.lines if l and set(l) <= set("▀▄█ ")]
    assert len(drawn) > 20, issuer.output()
    assert issuer.wait_line(lambda l: l.startswith("On the other device:"), 5).startswith(
        "On the other device: huddle pair - and paste the link"
    )
    # The QR image holds the secret: only its owner may read it.
    assert os.stat(image).st_mode & 0o777 == 0o600, oct(os.stat(image).st_mode)
    # The link goes in on standard input, out of the process list.
    bob = spawn(b, homes("b"), "pair", "-", "--name", "Bob", stdin=True)
    bob.send(link)
    bob.wait_line(lambda l: l.startswith("* paired with Ada (") and l.endswith("by the pairing link: verified"), 30)
    assert bob.wait_exit(15) == 0, bob.output()
    issuer.wait_line(lambda l: l.startswith("* paired with Bob (") and l.endswith("verified"), 10)
    assert issuer.wait_exit(15) == 0, issuer.output()
    for home in (homes("a"), homes("b")):
        assert '"trust":"verified"' in trusted(home)[0], trusted(home)
    with open(os.path.join(homes("b"), "trust.json")) as f:
        bob_trust = json.load(f)
    kept = bob_trust["devices"][0].get("addresses")
    # Seen once (2026-11-29) without the address; what each side said is kept for the next time.
    assert kept == [f"{a.ipv4}:47474"], (bob_trust, trusted(homes("a")), bob.output(), issuer.output())

    # Ada's device answers at the link's address again (her chat); the link is spent, so Cy is refused.
    ada = spawn(a, homes("a"), "chat", "--name", "Ada", stdin=True, ready="Chatting in")
    cy = spawn(c, homes("c"), "pair", link, "--name", "Cy")
    assert cy.wait_exit(30) not in (0, None), cy.output()
    assert any("already used, has expired" in l for l in cy.err_lines), cy.output()
    # A link in argv still works, with a word that other local users can read it.
    assert any("can read a link given as an argument" in l for l in cy.err_lines), cy.output()
    assert len(trusted(homes("a"))) == 1, trusted(homes("a"))

    chat_bob = spawn(b, homes("b"), "chat", "--name", "Bob", stdin=True, ready="Chatting in")
    chat_bob.wait_line(lambda l: l == "* connected to Ada", 20)
    ada.wait_line(lambda l: l == "* connected to Bob", 10)
    assert not any("first contact" in l for _, l in chat_bob.lines + ada.lines)
    chat_bob.send("paired by link")
    ada.wait_line(lambda l: l == "Bob: paired by link", 5)
