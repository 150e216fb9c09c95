"""Prompts on a terminal: one reader of standard input, one question on screen at a time.

An interactive `huddle clip sync` (in tmux, on a terminal) is dialled by two machines at once (`huddle peers
--mode client`). It pairs with one device at a time (the pairing budget): the first to get through shows its
code, the other is turned away as busy and comes back once the first pairing is decided. It keeps running, shows
the second question only once the first is answered, and each answer goes to the question it was typed under.
"""

from __future__ import annotations

import os
import re

import pytest

from huddle_cli import huddle_bin
from test_huddle_clip import Tmux, xdisplays  # noqa: F401 (fixture)

QUESTION = re.compile(r"\? pair with (\w+) \(\w+\)\? Code: \d{3} \d{3} .*\[y/n\]")


def client(host, name: str, home: str):
    """`huddle peers --mode client --json` in the clipboard session: it finds others and dials the one it is told
    to, and is found by nobody (so two of them never pair with each other)."""
    env = dict(os.environ, HUDDLE_HOME=home)
    argv = [huddle_bin(), "peers", "--mode", "client", "--json", "--session", "HuddleClipboard", "--name", name,
            "--host", f"huddle-{host.letter}", "--interface", host.ifname]
    return host.spawn(*argv, label=f"{host.letter}:peers {name}", stdin=True, env=env)


@pytest.mark.hosts(3)
def test_interactive_clip_sync_takes_two_pairing_requests_at_once_one_question_at_a_time(
        testbed, huddle, homes, xdisplays):
    a, b, c = testbed[0], testbed[1], testbed[2]
    x_ada = xdisplays()
    sync = [huddle_bin(), "clip", "sync", "--name", "Ada", "--host", "huddle-a", "--interface", a.ifname]
    pane = Tmux(a, sync, {"DISPLAY": x_ada.display, "HUDDLE_HOME": homes("Ada"), "SWIFT_BACKTRACE": "enable=no"})
    try:
        pane.wait("syncing the clipboard")
        peers = {"Bob": client(b, "Bob", homes("Bob")), "Cy": client(c, "Cy", homes("Cy"))}
        for proc in peers.values():
            proc.wait_event(lambda e: e.get("event") == "found" and e.get("name") == "Ada", 30)
        for proc in peers.values():
            proc.send("1")
        screen = pane.wait("? pair with")
        first = QUESTION.findall(screen)
        assert len(first) == 1, screen
        second_name = "Cy" if first[0] == "Bob" else "Bob"
        peers[first[0]].wait_event(lambda e: e.get("event") == "request" and e.get("name") == "Ada", 30)
        peers[first[0]].send("y")
        pane.keys("y", "Enter")
        pane.wait(f"+ {first[0]} connected")
        peers[second_name].wait_event(lambda e: e.get("event") == "request" and e.get("name") == "Ada", 60)
        peers[second_name].send("y")
        screen = pane.wait(f"? pair with {second_name} (")
        # The second question came up after the first was answered: below the typed answer, not beside it.
        lines = screen.splitlines()
        asked = [i for i, line in enumerate(lines) if QUESTION.search(line)]
        answered = lines.index("y")
        assert len(asked) == 2 and asked[0] < answered < asked[1], screen
        pane.keys("y", "Enter")
        pane.wait(f"+ {second_name} connected")
        for proc in peers.values():
            proc.wait_event(lambda e: e.get("event") == "state" and e.get("state") == "connected", 15)
        assert "EXIT=" not in pane.screen(), pane.screen()
        for proc in peers.values():
            assert proc.stop() == 0, proc.output()
    finally:
        pane.close()
