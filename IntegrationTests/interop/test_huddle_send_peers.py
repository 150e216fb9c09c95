"""Issue 4: `huddle send` to several peers at once (--to repeated), and the peer picker when several are there."""

from __future__ import annotations

import os

import pytest

from test_huddle_transfer import make_file, sha256, spawn


def receiving(host, homes, name: str, count: int):
    inbox = homes(f"inbox-{name}")
    proc = spawn(host, homes(name), "receive", "--dir", inbox, "--yes", "--count", str(count), "--name", name)
    proc.wait_line(lambda l: l.startswith("Receiving into"), 15)
    return proc, inbox


@pytest.mark.hosts(3)
def test_one_send_reaches_two_peers_and_the_picker_chooses_among_several(testbed, huddle, homes):
    a, b, c = testbed[0], testbed[1], testbed[2]
    bob, bob_inbox = receiving(b, homes, "Bob", 2)
    cy, cy_inbox = receiving(c, homes, "Cy", 1)
    source = os.path.join(homes("files"), "report.bin")
    expected = make_file(source, 8 * 1024 * 1024)
    both = spawn(a, homes("Ada"), "send", source, "--to", "Bob", "--to", "Cy", "--yes", "--name", "Ada")
    assert both.wait_exit(60) == 0, both.output()
    assert {l for _, l in both.lines if l.startswith("sent report.bin")} == {
        "sent report.bin to Bob: verified by the receiver", "sent report.bin to Cy: verified by the receiver"}
    for inbox in (bob_inbox, cy_inbox):
        assert sha256(os.path.join(inbox, "report.bin")) == expected
    assert cy.wait_exit(15) == 0, cy.output()
    # Cy has gone; a third receiver makes it two again for the picker.
    cy2, cy2_inbox = receiving(c, homes, "Cy", 1)
    note = os.path.join(homes("files"), "note.txt")
    with open(note, "w") as f:
        f.write("for Bob only\n")
    # No --to and no one to ask (standard input is /dev/null): refused with the names, nothing sent.
    blind = spawn(a, homes("Ada"), "send", note, "--yes", "--name", "Ada")
    assert blind.wait_exit(30) == 64, blind.output()
    assert any("several peers are here (Bob, Cy)" in l for l in blind.err_lines), blind.err_lines
    picker = spawn(a, homes("Ada"), "send", note, "--yes", "--name", "Ada", stdin=True)
    picker.wait_line(lambda l: l == "  1) Bob", 30)
    picker.wait_line(lambda l: l == "  2) Cy", 5)
    picker.send("1")
    assert picker.wait_exit(30) == 0, picker.output()
    assert bob.wait_exit(15) == 0, bob.output()
    with open(os.path.join(bob_inbox, "note.txt")) as f:
        assert f.read() == "for Bob only\n"
    assert "note.txt" not in os.listdir(cy2_inbox)
    cy2.stop()
