"""Issue 7: pairing abuse through the CLI — a host starts pairing again and again under fresh identities and
walks away before answering (docs/security.md §3.5, §5 C6). After five unfinished runs within ten minutes the
target refuses further first contacts and says so on its screen; a device paired before still reconnects.
"""

from __future__ import annotations

import os
import signal

import pytest

from test_huddle_chat import chat, code_of, pair

ATTEMPTS = 5  # PeerSessionConfiguration.maximumFailedPairings


@pytest.mark.hosts(3)
def test_repeated_aborted_pairings_hit_the_limit_and_the_user_is_told(testbed, huddle, homes):
    a, b, c = testbed[0], testbed[1], testbed[2]
    bob = chat(b, "Bob", homes("b"))
    ada = chat(a, "Ada", homes("a"))
    pair(ada, bob, "Ada", "Bob")
    assert ada.stop() == 0
    bob.wait_line(lambda l: l == "* Ada left the chat", 10)
    for i in range(ATTEMPTS):
        mark = bob.mark()
        mallory = chat(c, f"Mallory{i}", homes(f"m{i}"))
        code_of(mallory)  # the handshake reached the code on both screens ...
        code_of(bob, start=mark)
        os.kill(mallory.pid, signal.SIGKILL)  # ... and Mallory walks away without answering
        bob.wait_line(lambda l: l.startswith("* request") and "ended" in l, 20, start=mark)
    mark = bob.mark()
    mallory = chat(c, "Mallory-again", homes("m-again"))
    line = bob.wait_line(lambda l: l.startswith("! Mallory-again"), 20, start=mark)
    assert "too many unfinished pairing attempts" in line, line
    assert not any("first contact" in l for _, l in bob.lines[mark:]), bob.output()
    mallory.wait_line(lambda l: "refused" in l or "could not connect" in l, 20)
    assert not any("connected to" in l for _, l in mallory.lines), mallory.output()
    # A device paired before is not a pairing run: it reconnects without a code.
    mark = bob.mark()
    ada = chat(a, "Ada", homes("a"))
    ada.wait_line(lambda l: l == "* connected to Bob", 20)
    bob.wait_line(lambda l: l == "* connected to Ada", 20, start=mark)
    ada.send("still welcome")
    bob.wait_line(lambda l: l == "Ada: still welcome", 10)
    print(f"Bob's screen: {line!r}")
