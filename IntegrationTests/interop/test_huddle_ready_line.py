"""`huddle receive` says it is ready only once it can be found, and under the name it can be found by.

Its name is probed for first (RFC 6762 §8.1, about a second), so the "Receiving into … as NAME." line comes after
probing, and NAME is the one that won: a second receiver called Bob on another host is "Bob (2)" (§9), and a
sender started when that line appears reaches it by that name.
"""

from __future__ import annotations

import os

import pytest

from test_huddle_transfer import make_file, sha256, spawn


def ready_name(proc) -> str:
    """NAME from the receiver's "Receiving into DIR as NAME. Ctrl-C to stop." line."""
    line = proc.wait_line(lambda l: l.startswith("Receiving into"), 15)
    return line.split(" as ", 1)[1].removesuffix(". Ctrl-C to stop.")


@pytest.mark.hosts(3)
def test_ready_line_names_the_name_that_won_and_a_sender_finds_it_at_once(testbed, huddle, homes):
    a, b, c = testbed[0], testbed[1], testbed[2]
    first = spawn(b, homes("b"), "receive", "--dir", homes("inbox-b"), "--yes", "--count", "1", "--name", "Bob")
    assert ready_name(first) == "Bob", first.output()
    second = spawn(c, homes("c"), "receive", "--dir", homes("inbox-c"), "--yes", "--count", "1", "--name", "Bob")
    assert ready_name(second) == "Bob (2)", second.output()
    source = os.path.join(homes("files"), "note.bin")
    expected = make_file(source, 64 * 1024)
    sender = spawn(a, homes("a"), "send", source, "--to", "Bob (2)", "--yes", "--name", "Ada")
    assert sender.wait_exit(30) == 0, sender.output()
    assert second.wait_exit(10) == 0, second.output()
    assert sha256(os.path.join(homes("inbox-c"), "note.bin")) == expected
    assert os.listdir(homes("inbox-b")) == []
    first.stop()
