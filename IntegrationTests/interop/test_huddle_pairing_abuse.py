"""Pairing abuse through the CLI: a host starts pairing again and again under fresh identities and walks away
before answering (docs/threat-model.md, "The pairing budget"). After five runs that ended unpaired the target
pauses pairing for 60 s and says so on its screen, naming the address they came from; a further first contact is
refused while paused (whichever side dials); a device paired before still reconnects.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from test_huddle_chat import chat, code_of, pair
from testbed import TestbedError as BedError

pytestmark = pytest.mark.full  # the full run only (scripts/test --full)

ATTEMPTS = 5  # PairingBudget.Configuration.maximumFailures


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
    line = bob.wait_line(lambda l: "pairing attempts from" in l, 20)
    sources = [c.ipv4] + ([c.ipv6_ll.split("%")[0]] if c.ipv6_ll else [])
    expected = [f"! {ATTEMPTS} pairing attempts from {s} were abandoned: pausing new pairings for 60 s" for s in sources]
    assert line in expected, line
    mark = bob.mark()
    mallory = chat(c, "Mallory-again", homes("m-again"))
    # Whoever dials, the run is refused before any code: Bob's own dial waits for no pause, and a dial from
    # Mallory is turned away with the reason.
    paused = "pairing is paused after abandoned attempts"
    refusal = None
    deadline = time.monotonic() + 20
    while refusal is None and time.monotonic() < deadline:
        said = [l for _, l in bob.lines[mark:] if l.startswith("! could not connect to Mallory-again")]
        said += [l for _, l in mallory.lines if l.startswith("! could not connect to Bob")]
        if said:
            refusal = said[0]
            break
        try:
            mallory.wait_line(lambda l: l.startswith("! could not connect"), 0.5)
        except BedError:
            pass
    assert refusal is not None and paused in refusal, (bob.output(), mallory.output())
    assert not any("first contact" in l for _, l in bob.lines[mark:]), bob.output()
    assert not any("connected to" in l for _, l in mallory.lines), mallory.output()
    # A device paired before is not a pairing run: it reconnects without a code.
    mark = bob.mark()
    ada = chat(a, "Ada", homes("a"))
    ada.wait_line(lambda l: l == "* connected to Bob", 20)
    bob.wait_line(lambda l: l == "* connected to Ada", 20, start=mark)
    ada.send("still welcome")
    bob.wait_line(lambda l: l == "Ada: still welcome", 10)
    print(f"Bob's screen: {line!r}")
