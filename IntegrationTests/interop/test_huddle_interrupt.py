"""Ctrl-C (SIGINT) ends every session command cleanly: multicast DNS goodbyes go out, so a browser on another
host drops the session at once instead of after the records' TTL, and the command exits 130 saying
"interrupted". `send`, `receive`, `clip share` and `clip receive` used to skip this and die at the signal.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from conftest import skip_or_fail
from huddle_cli import huddle_bin
from testbed import expect, match
from xdisplay import XDisplay
from zc_peer import zc_browse

# A goodbye makes python-zeroconf drop the records after 1 s (RFC 6762 §10.1); without one they live for their
# TTL (120 s for the SRV record). The bound tells the two apart; it does not measure speed.
GOODBYE_WITHIN = 10.0


def spawn(host, home: str, *args: str, stdin: bool = False):
    env = dict(os.environ, HUDDLE_HOME=home)
    argv = [huddle_bin(), *args, "--host", f"huddle-{host.letter}", "--interface", host.ifname]
    return host.spawn(*argv, label=f"{host.letter}:{args[0]}", stdin=stdin, env=env)


def interrupt_and_expect_goodbye(proc, browser, name: str) -> None:
    """SIGINT to proc: the browser sees `name` removed within GOODBYE_WITHIN; proc exits 130 saying so."""
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    event = expect(browser, match("removed", name=name), 5, also=[proc], what=f"{name!r} removed after SIGINT")
    assert event["_t"] - sent <= GOODBYE_WITHIN, f"removed after {event['_t'] - sent:.2f}s"
    assert proc.wait_exit(10) == 130, proc.output()
    assert "huddle: interrupted" in proc.output(), proc.output()


@pytest.mark.hosts(2)
@pytest.mark.parametrize("command, service", [
    (("receive", "--dir", "{inbox}"), "_typingtogether._tcp"),
    (("send", "{file}", "--to", "Nobody", "--wait", "60"), "_typingtogether._tcp"),
    (("clip", "receive", "--out", "{inbox}/item"), "_huddleclipboard._tcp"),
])
def test_sigint_while_waiting_says_goodbye(testbed, huddle, homes, command, service):
    """Each command, waiting for a peer, is interrupted: goodbyes reach python-zeroconf on the other host."""
    a, b = testbed[0], testbed[1]
    inbox = homes("inbox")
    file = os.path.join(homes("files"), "note.txt")
    with open(file, "w") as out:
        out.write("hello\n")
    args = [part.format(inbox=inbox, file=file) for part in command]
    browser = zc_browse(b, service, timeout=40)
    proc = spawn(a, homes("a"), *args, "--name", "Ada")
    expect(browser, match("added", name="Ada"), 15, also=[proc], what="'Ada' found by python-zeroconf")
    interrupt_and_expect_goodbye(proc, browser, "Ada")


@pytest.mark.hosts(2)
def test_sigint_while_an_offer_waits_stops_the_sender_cleanly(testbed, huddle, homes):
    """A sender interrupted while its offer waits for the receiver's answer says goodbye and exits 130; the
    receiver keeps running and nothing was written."""
    a, b = testbed[0], testbed[1]
    source = os.path.join(homes("files"), "offer.bin")
    with open(source, "wb") as out:
        out.write(os.urandom(1 << 20))
    inbox = homes("inbox")
    receiver = spawn(b, homes("b"), "receive", "--dir", inbox, "--trust-on-first-use", "--name", "Bob", stdin=True)
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    browser = zc_browse(b, "_typingtogether._tcp", timeout=60)
    sender = spawn(a, homes("a"), "send", source, "--to", "Bob", "--trust-on-first-use", "--name", "Ada")
    expect(browser, match("added", name="Ada"), 15, also=[sender], what="'Ada' found by python-zeroconf")
    receiver.wait_line(lambda l: "offer.bin" in l and "Accept? [y/n]" in l, 30)
    interrupt_and_expect_goodbye(sender, browser, "Ada")
    assert os.listdir(inbox) == [], os.listdir(inbox)
    assert receiver.proc.poll() is None, receiver.output()


@pytest.mark.hosts(2)
def test_sigint_while_clip_share_waits_says_goodbye(testbed, huddle, homes):
    """`clip share`, with an item to share and waiting for its peer, is interrupted like the others."""
    a, b = testbed[0], testbed[1]
    try:
        display = XDisplay()
    except RuntimeError as e:
        skip_or_fail(str(e))
    try:
        display.copy(b"never shared")
        browser = zc_browse(b, "_huddleclipboard._tcp", timeout=40)
        argv = [huddle_bin(), "clip", "share", "--to", "Nobody", "--wait", "60", "--name", "Ada",
                "--host", "huddle-a", "--interface", a.ifname]
        share = a.spawn(*argv, label="a:clip share", env=display.env(HUDDLE_HOME=homes("a")))
        expect(browser, match("added", name="Ada"), 15, also=[share], what="'Ada' found by python-zeroconf")
        interrupt_and_expect_goodbye(share, browser, "Ada")
    finally:
        display.stop()
