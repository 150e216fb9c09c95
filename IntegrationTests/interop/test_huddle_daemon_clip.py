"""Issue 38: the daemon keeps the clipboard in step (`clip-sync = true` in config.toml), on test hosts with an X
server each (Xvfb, checked with xclip), with nothing but the README's commands. Ada's and Bob's daemons pair by
link; a copy on either machine is on the other's clipboard; `huddle clip sync` on Ada's host follows her daemon's
sync (no second session) and says what went; Bob's web page lists the items with their text. A machine that is
not paired (Cy, running `huddle clip sync`) is refused, saying to pair; once paired by a link of Ada's daemon, his
clipboard is connected and his copy reaches Ada; `huddle clip share` on Ada's host goes through her daemon to Cy's
`huddle clip receive --out`. Without `clip-sync` the page says how to turn it on and `huddle clip sync` starts a
sync of its own.
"""

from __future__ import annotations

import os
import re

import pytest

from huddle_cli import huddle_bin
from test_huddle_clip import xdisplays  # noqa: F401 (a fixture)
from test_huddle_daemon import User, pair_by_link
from test_huddle_daemon_page import fetch, page_url
from testbed import wait_until
from xdisplay import XDisplay


def syncing_user(host, homes, name: str, display: XDisplay) -> User:
    """A user whose daemon syncs the clipboard of `display`."""
    user = User(host, homes, name)
    user.extra = {"DISPLAY": display.display}
    config = os.path.join(user.home, ".config", "huddle")
    os.makedirs(config, exist_ok=True)
    with open(os.path.join(config, "config.toml"), "w") as f:
        f.write("clip-sync = true\n")
    return user


@pytest.mark.hosts(3, ifname="eth0")
def test_daemons_keep_the_clipboards_in_step_and_an_unpaired_machine_joins_once_paired(testbed, huddle, homes, xdisplays):
    ada_x, bob_x, cy_x = xdisplays(), xdisplays(), xdisplays()
    ada = syncing_user(testbed[0], homes, "DaAda", ada_x)
    bob = syncing_user(testbed[1], homes, "DaBob", bob_x)
    ada_daemon = ada.daemon()
    bob_daemon = bob.daemon("--dir", homes("inbox"))
    pair_by_link(ada, bob, bob_daemon)

    follow = ada.run("clip", "sync")
    follow.wait_line(lambda l: l.startswith('The daemon keeps this clipboard in step in "HuddleClipboard" as DaAda'),
                     20)

    def both_connected() -> bool:
        return any(line == "+ DaBob connected" for _, line in follow.lines) or \
            any("connected: DaBob." in line for _, line in follow.lines)
    try:
        wait_until(both_connected, 40, what="DaBob's clipboard connected to Ada's daemon")
    except Exception as e:
        raise AssertionError(f"{e}\n{follow.output()}\n{ada_daemon.output()}\n{bob_daemon.output()}") from e

    ada_x.copy(b"copied on Ada's machine \xc3\xa9")
    bob_x.wait_for(b"copied on Ada's machine \xc3\xa9", timeout=20)
    follow.wait_line(lambda l: l.startswith("→ shared text/plain;charset=utf-8 (26 B)") and l.endswith("with DaBob"),
                     20)
    bob_x.copy(b"and back from Bob")
    ada_x.wait_for(b"and back from Bob", timeout=20)
    follow.wait_line(lambda l: l.startswith("← DaBob's copy is on the clipboard: text/plain;charset=utf-8 (17 B)"),
                     20)

    # Bob's page lists what came, newest first, with its text.
    page = fetch(bob.host, page_url(bob))
    assert page["status"] == 200, page
    body = page["body"]
    assert '<section id="clipboard"><h2>Clipboard</h2><ul>' in body, body
    came = body.index('<span class="name">From DaAda</span><p class="said">copied on Ada&#39;s machine é</p>')
    went = body.index('<span class="name">To DaAda</span><p class="said">and back from Bob</p>')
    assert went < came, body

    # Cy is paired with no one: his sync dials Ada's daemon, which refuses, saying to pair; once paired (by a link
    # of Ada's daemon, `huddle pair -` on Cy's host) Ada's daemon connects his clipboard and his copy reaches Ada.
    cy = testbed[2]
    cy_env = cy_x.env(HOME=homes("Cy"), HUDDLE_HOME=homes("Cy"))
    cy_sync = cy.spawn(huddle_bin(), "clip", "sync", "--name", "Cy", label="c:clip sync", env=cy_env)
    follow.wait_line(lambda l: l.startswith("! Cy (") and "is not paired with this machine" in l, 40)
    issuer = ada.run("pair", "--no-qr")
    link = issuer.wait_line(lambda l: l.startswith("huddle:pair"), 20)
    pair = cy.spawn(huddle_bin(), "pair", "-", "--name", "Cy", label="c:pair", stdin=True, env=cy_env)
    pair.send(link)
    assert pair.wait_exit(60) == 0, pair.output() + ada_daemon.output()
    assert issuer.wait_exit(30) == 0, issuer.output()
    cy_sync.wait_line(lambda l: l == "+ DaAda connected", 40)
    # A machine that connects gets the current item first: awaited, so that it does not land on Cy's clipboard
    # over the copy made next (two writes to one clipboard: the later stays).
    cy_x.wait_for(b"and back from Bob", timeout=20)
    cy_x.copy(b"from Cy, once paired")
    ada_x.wait_for(b"from Cy, once paired", timeout=20)

    # `huddle clip share` on Ada's host goes through her daemon (no session of its own): Cy, now running
    # `huddle clip receive`, takes the item into a file, byte for byte.
    cy_sync.stop()
    out = os.path.join(homes("Cy"), "shared.txt")
    receive = cy.spawn(huddle_bin(), "clip", "receive", "--name", "Cy", "--yes", "--count", "1", "--out", out,
                       label="c:clip receive", env=cy_env)
    receive.wait_line(lambda l: l.startswith("Waiting for shared clipboard items as Cy"), 20)
    ada_x.copy(b"shared with Cy on purpose")
    bob_x.wait_for(b"shared with Cy on purpose", timeout=20)
    share = ada.run("clip", "share", "--to", "Cy", "--yes", "--wait", "40")
    assert share.wait_exit(60) == 0, share.output() + ada_daemon.output() + receive.output()
    assert any(line == "Cy took it" for _, line in share.lines), share.output()
    assert receive.wait_exit(20) == 0, receive.output()
    with open(out, "rb") as f:
        assert f.read() == b"shared with Cy on purpose"
    follow.wait_line(lambda l: l.startswith("→ shared text/plain;charset=utf-8 (25 B) with Cy, who took it"), 20)
    assert not any("\x1b" in line for _, line in follow.lines)


@pytest.mark.hosts(1, ifname="eth0")
def test_without_clip_sync_the_page_says_how_and_clip_sync_runs_by_itself(testbed, huddle, homes, xdisplays):
    display = xdisplays()
    ada = User(testbed[0], homes, "DaAda")
    ada.extra = {"DISPLAY": display.display}
    ada.daemon()
    page = fetch(ada.host, page_url(ada))
    assert '<section id="clipboard"><h2>Clipboard</h2><p class="empty">Clipboard sync is off: ' \
        '<span class="id">clip-sync = true</span>' in page["body"], page["body"]
    alone = ada.run("clip", "sync")
    alone.wait_line(lambda l: l.startswith("syncing the clipboard (") and 'in "HuddleClipboard" as ' in l, 20)
    assert not any("The daemon keeps" in line for _, line in alone.lines), alone.output()


@pytest.mark.hosts(2, ifname="eth0")
def test_a_share_to_a_daemon_that_asks_waits_for_an_answer_and_clip_receive_takes_one_through_it(testbed, huddle,
                                                                                              homes, xdisplays):
    """Bob's rule for paired devices asks (`[accept] paired = "ask"`): a share from Ada (`huddle clip share`, through
    her daemon) waits as a question of Bob's daemon; `huddle answer N no` declines it (Ada's share says so, exit 1),
    yes takes it (exit 0). `huddle clip receive --out` beside the daemon takes the next share through it, asked in
    the command, and saves it to the file."""
    ada_x, bob_x = xdisplays(), xdisplays()
    ada = syncing_user(testbed[0], homes, "DaAda", ada_x)
    bob = syncing_user(testbed[1], homes, "DaBob", bob_x)
    with open(os.path.join(bob.home, ".config", "huddle", "config.toml"), "a") as f:
        f.write('[accept]\npaired = "ask"\n')
    ada.daemon()
    bob_daemon = bob.daemon("--dir", homes("inbox"))
    pair_by_link(ada, bob, bob_daemon)
    ada_x.copy(b"a share Bob is asked about")
    bob_x.wait_for(b"a share Bob is asked about", timeout=40)

    for answer, status, said in (("no", 1, "DaBob declined: declined by the user"), ("yes", 0, "DaBob took it")):
        mark = len(bob_daemon.lines)
        share = ada.run("clip", "share", "--to", "DaBob", "--yes")
        question = bob_daemon.wait_line(lambda l: re.fullmatch(r"question \d+ waits: .*", l) is not None, 40,
                                        start=mark)
        number = question.split()[1]
        listing = bob.run("answer")
        assert listing.wait_exit(20) == 0, listing.output() + bob_daemon.output()
        assert any('DaAda shares text/plain;charset=utf-8 (26 B) "a share Bob is asked about". Put it on the '
                   'clipboard? [y/n]' in l for _, l in listing.lines), listing.output() + bob_daemon.output()
        answered = bob.run("answer", number, answer)
        assert answered.wait_exit(20) == 0, answered.output()
        assert share.wait_exit(40) == status, share.output() + bob_daemon.output()
        assert said in share.output(), share.output()

    # `huddle clip receive --out` beside the daemon takes the next share through it: asked in the command (the
    # daemon's question, answered there), saved to the file, not put on the clipboard by the rules.
    out = os.path.join(homes("bob-files"), "shared.txt")
    receive = bob.run("clip", "receive", "--out", out, "--count", "1", stdin=True)
    receive.wait_line(lambda l: l.startswith("Waiting for shared clipboard items as DaBob"), 20)
    text = "saved to a file on Bob's machine \u2713".encode()
    ada_x.copy(text)
    bob_x.wait_for(text, timeout=40)
    mark = len(bob_daemon.lines)
    share = ada.run("clip", "share", "--to", "DaBob", "--yes")
    bob_daemon.wait_line(lambda l: re.fullmatch(r"question \d+ waits: .*", l) is not None, 40, start=mark)
    receive.send("y")
    assert receive.wait_exit(20) == 0, receive.output() + bob_daemon.output()
    assert share.wait_exit(40) == 0, share.output() + bob_daemon.output()
    assert f"saved to {out}" in receive.output(), receive.output()
    with open(out, "rb") as f:
        assert f.read() == text


@pytest.mark.hosts(2, ifname="eth0")
def test_a_share_through_the_daemon_is_refused_when_the_clipboard_changed_after_it_was_shown(testbed, huddle, homes,
                                                                                            xdisplays):
    """`huddle clip share` shows what it would share and asks; when the clipboard changes before the answer, Ada's
    daemon refuses to share the new item in its place (exit 65, saying why) and Bob's clipboard keeps what sync put
    there, never a share nobody confirmed."""
    ada_x, bob_x = xdisplays(), xdisplays()
    ada = syncing_user(testbed[0], homes, "DaAda", ada_x)
    bob = syncing_user(testbed[1], homes, "DaBob", bob_x)
    with open(os.path.join(bob.home, ".config", "huddle", "config.toml"), "a") as f:
        f.write('[accept]\npaired = "ask"\n')
    ada_daemon = ada.daemon()
    bob_daemon = bob.daemon("--dir", homes("inbox"))
    pair_by_link(ada, bob, bob_daemon)
    ada_x.copy(b"what Ada was shown")
    bob_x.wait_for(b"what Ada was shown", timeout=40)

    share = ada.run("clip", "share", "--to", "DaBob", stdin=True)
    share.wait_line(lambda l: l.startswith("Share with DaBob: ") and "[y/n]" in l, 30)
    ada_x.copy(b"copied while the question waited")
    bob_x.wait_for(b"copied while the question waited", timeout=40)
    mark = len(bob_daemon.lines)
    share.send("y")
    assert share.wait_exit(30) == 65, share.output() + ada_daemon.output()
    assert any("the clipboard changed since it was shown: nothing shared" in l for l in share.err_lines), \
        share.output()
    # Nothing reached Bob's daemon as a share: no question was asked there.
    assert not any(l.startswith("question ") for _, l in bob_daemon.lines[mark:]), bob_daemon.output()
