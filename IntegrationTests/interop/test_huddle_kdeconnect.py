"""Huddle and KDE Connect: Debian's kdeconnectd (protocol 7) in another test host finds Huddle, pairs with it with
the same verification key on both sides, and texts go both ways.

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
