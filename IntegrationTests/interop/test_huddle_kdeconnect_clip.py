"""`huddle clip sync` with KDE Connect: Debian's kdeconnectd under its own Xvfb pairs with Ada's clip sync, and
its clipboard follows Ada's and Cy's (Cy reaches it only through Ada), both ways, with each copy taken once.

Full tier: three hosts, three X servers, the KDE Connect daemon.
"""

from __future__ import annotations

import re

import pytest

from huddle_cli import huddle_bin
from test_huddle_clip import xdisplays  # noqa: F401 - a fixture used below
from xdisplay import XDisplay

pytestmark = pytest.mark.full

SIZE = "text/plain;charset=utf-8 ({} B)"


def clip_sync(host, home: str, display: XDisplay, name: str, *extra: str):
    """`huddle clip sync --name NAME` in host, with its own data directory and X display."""
    argv = [huddle_bin(), "clip", "sync", "--trust-on-first-use", "--name", name, *extra,
            "--host", f"huddle-{host.letter}", "--interface", host.ifname]
    return host.testbed.track(host.spawn(*argv, label=f"{host.letter}:clip sync", env=display.env(HUDDLE_HOME=home)))


def took(proc, source: str) -> list[str]:
    """The sizes of the items `proc` put on its clipboard from `source`, in order."""
    prefix = f"← {source}'s copy is on the clipboard: "
    return [line[len(prefix):] for _, line in list(proc.lines) if line.startswith(prefix)]


@pytest.mark.hosts(3, default_route=True)
def test_a_kdeconnect_clipboard_follows_two_huddle_machines_both_ways_without_echo(testbed, kdeconnect, homes,
                                                                                   xdisplays):
    """kc-b asks Ada's clip sync to pair (--yes: paired, the key shown). A copy on kc-b's display lands on Ada's and
    on Cy's; a copy on Cy's (which does not speak KDE Connect) and one on Ada's land on kc-b's. Every item is taken
    once on each machine: kc-b's echo of an item it was given is not a new copy, and no item comes back to where it
    was copied."""
    a, b, c = testbed.hosts
    x_ada, x_cy = xdisplays(), xdisplays()
    kc = kdeconnect(b, "kc-b", display=True)
    ada = clip_sync(a, homes("Ada"), x_ada, "Ada", "--yes")
    cy = clip_sync(c, homes("Cy"), x_cy, "Cy", "--no-kdeconnect")
    ada.wait_line(lambda l: l == "+ Cy connected", 30)
    cy.wait_line(lambda l: l == "+ Ada connected", 30)

    device = kc.wait_device("Ada", timeout=20)
    kc.request_pair(device["id"])
    asked = ada.wait_line(lambda l: l.startswith('? KDE Connect device "kc-b" asks to pair. Verification key: '), 20)
    assert kc.verification_key(device["id"])[:8] in asked, asked
    ada.wait_line(lambda l: l == "* paired with KDE Connect device kc-b", 20)
    kc.wait_paired(device["id"], timeout=20)

    first = "copied on KDE ✓"
    kc.clipboard_set(first)
    x_ada.wait_for(first.encode(), timeout=20)
    x_cy.wait_for(first.encode(), timeout=20)

    second = "copied on Cy, through Ada ✓✓"
    x_cy.copy(second.encode())
    kc.wait_clipboard(second, timeout=20)
    x_ada.wait_for(second.encode(), timeout=10)

    third = "copied on Ada, three ✓✓✓"
    x_ada.copy(third.encode())
    kc.wait_clipboard(third, timeout=20)
    x_cy.wait_for(third.encode(), timeout=20)

    # A last copy on kc-b: the sync's messages arrive in order, so anything kc-b sent before it has arrived
    # at Ada, and anything Ada passed on has reached Cy, by the time Cy takes it.
    last = "the last copy on KDE, four ✓✓✓✓"
    kc.clipboard_set(last)
    cy.wait_line(lambda l: l == f"← Ada's copy is on the clipboard: {SIZE.format(len(last.encode()))}", 20)
    x_ada.wait_for(last.encode(), timeout=10)
    sizes = [SIZE.format(len(text.encode())) for text in (first, second, third, last)]
    assert took(ada, "kc-b") == [sizes[0], sizes[3]], ada.output()
    assert took(ada, "Cy") == [sizes[1]], ada.output()
    assert took(cy, "Ada") == [sizes[0], sizes[2], sizes[3]], cy.output()
    assert kc.clipboard_get() == last


@pytest.mark.hosts(2, ifname="eth0", default_route=True)
def test_a_daemon_with_clip_sync_keeps_a_paired_kdeconnect_clipboard_in_step(testbed, kdeconnect, homes, xdisplays):
    """`clip-sync = true` in the daemon's config.toml takes KDE Connect devices in too: kc-b asks to pair, the
    daemon asks (`huddle answer` says yes), then a copy on kc-b's display is on Ada's and one on Ada's is on kc-b's,
    each taken once; the page lists both. Only README commands on Ada's side."""
    from test_huddle_daemon_clip import syncing_user
    from test_huddle_daemon_page import fetch, page_url

    a, b = testbed.hosts
    x_ada = xdisplays()
    kc = kdeconnect(b, "kc-b", display=True)
    ada = syncing_user(a, homes, "DaAda", x_ada)
    daemon = ada.daemon()
    device = kc.wait_device("DaAda", timeout=20)
    kc.request_pair(device["id"])
    question = daemon.wait_line(lambda l: re.fullmatch(r"question \d+ waits: .*", l) is not None, 30)
    number = question.split()[1]
    listing = ada.run("answer")
    assert listing.wait_exit(20) == 0, listing.output()
    assert any('KDE Connect device "kc-b" asks to pair' in line for _, line in listing.lines), listing.output()
    answered = ada.run("answer", number, "yes")
    assert answered.wait_exit(20) == 0, answered.output() + daemon.output()
    kc.wait_paired(device["id"], timeout=20)
    daemon.wait_line(lambda l: l == "clipboard: * paired with KDE Connect device kc-b", 20)

    first = "copied on KDE, for the daemon ✓"
    kc.clipboard_set(first)
    x_ada.wait_for(first.encode(), timeout=20)
    second = "copied on Ada's machine, for KDE ✓✓"
    x_ada.copy(second.encode())
    kc.wait_clipboard(second, timeout=20)
    daemon.wait_line(lambda l: l.startswith("clipboard: → shared text/plain;charset=utf-8") and l.endswith("with kc-b"),
                     20)
    taken = [line for _, line in list(daemon.lines) if line.startswith("clipboard: ← kc-b's copy is on the clipboard")]
    assert taken == [f"clipboard: ← kc-b's copy is on the clipboard: {SIZE.format(len(first.encode()))}"], \
        daemon.output()

    page = fetch(a, page_url(ada))
    assert page["status"] == 200, page
    body = page["body"]
    came = body.index('<span class="name">From kc-b</span><p class="said">copied on KDE, for the daemon ✓</p>')
    went = body.index('<span class="name">To kc-b</span><p class="said">copied on Ada&#39;s machine, for KDE ✓✓</p>')
    assert went < came, body
