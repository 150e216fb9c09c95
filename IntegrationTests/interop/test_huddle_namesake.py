"""Issue 7, docs/security.md §5 J3: a device that borrows a paired device's name. Ada and Bob pair; later another
device (its own key) calls itself "bob". Ada runs with --yes, which takes every other new device without a word:
this one is shown as a first contact with a warning that names the paired Bob, and is asked about, not accepted.
Answering n pins nothing. A device with a name of its own is still accepted by --yes.
"""

from __future__ import annotations

import json

import pytest

from test_huddle_chat import chat, pair, trusted


@pytest.mark.hosts(3)
def test_a_borrowed_name_is_warned_about_and_never_auto_accepted(testbed, huddle, homes):
    a, b, c = testbed[0], testbed[1], testbed[2]
    bob = chat(b, "Bob", homes("b"))
    ada = chat(a, "Ada", homes("a"))
    pair(ada, bob, "Ada", "Bob")
    assert ada.stop() == 0 and bob.stop() == 0
    [record] = [json.loads(line) for line in trusted(homes("a"))]
    bob_short = record["deviceID"][:7]

    ada = chat(a, "Ada", homes("a"), "--yes")
    impostor = chat(c, "bob", homes("m"), "--yes")
    warning = ada.wait_line(lambda l: l.startswith("! bob (") and "name of a paired one" in l, 30)
    assert bob_short in warning, (bob_short, warning)
    question = ada.wait_line(lambda l: l.startswith("? pair with bob ("), 10)
    assert not any(l.startswith("* accepting") for _, l in ada.lines), ada.output()
    ada.send("n")
    ada.wait_line(lambda l: l == "* refused bob", 15)
    assert impostor.stop() == 0
    assert not any("connected to bob" in l for _, l in ada.lines), ada.output()
    assert [json.loads(line)["name"] for line in trusted(homes("a"))] == ["Bob"]

    mark = ada.mark()
    cy = chat(c, "Cy", homes("c"), "--yes")
    ada.wait_line(lambda l: l == "* connected to Cy", 30, start=mark)
    assert not any("name of a paired one" in l for _, l in ada.lines[mark:]), ada.output()
    assert cy.stop() == 0 and ada.stop() == 0
    print(f"Ada's screen: {warning!r} / {question!r}")
