"""Issue 38: `huddle peers` through the daemon is the daemon's live peer picker, on two test hosts with nothing but
the README's commands. Ada's picker lists DaBob (not paired, here); typing his number connects through her daemon,
whose question (the code to compare) shows in the picker and is answered there with `y N` while Bob answers his
with `huddle answer`; the list is shown again with DaBob paired, and again when his daemon stops (away). `/quit`
leaves with 0.
"""

from __future__ import annotations

import re

import pytest

from test_huddle_daemon import User
from testbed import wait_until


@pytest.mark.hosts(2, ifname="eth0")
def test_the_picker_follows_the_daemon_connects_and_answers_its_question(testbed, huddle, homes):
    ada, bob = User(testbed[0], homes, "DaAda"), User(testbed[1], homes, "DaBob")
    ada_daemon = ada.daemon()
    bob_daemon = bob.daemon("--dir", homes("inbox"))

    picker = ada.run("peers", stdin=True)
    picker.wait_line(lambda l: l == "Type a device's number to connect, y N or n N to answer question N, /quit to "
                     "leave.", 20)
    line = picker.wait_line(lambda l: re.match(r"  (\d+)\) DaBob \(\w+\) — not paired, here$", l) is not None, 40)
    number = re.match(r"  (\d+)\)", line).group(1)
    picker.send(number)
    picker.wait_line(lambda l: l == "Connecting to DaBob…", 10)

    # Ada's daemon asks her (in the picker); Bob's asks him (huddle answer on his host).
    asked = picker.wait_line(lambda l: re.match(r"\d+: ", l) is not None, 40)
    question = asked.split(":")[0]
    assert "pair with DaBob (" in asked and "Code: " in asked, picker.output()
    picker.wait_line(lambda l: l == f"   (y {question} or n {question})", 5)

    def bob_answers() -> bool:
        answer = bob.run("answer", "1", "yes")
        return answer.wait_exit(20) == 0
    wait_until(bob_answers, 40, what="Bob's daemon asking about DaAda")
    picker.send(f"y {question}")
    picker.wait_line(lambda l: l == f"answered {question}: yes", 10)
    picker.wait_line(lambda l: l == "connected to DaBob", 40)
    mark = len(picker.lines)
    picker.wait_line(lambda l: re.match(r"  \d+\) DaBob \(\w+\) — paired, here$", l) is not None, 20)

    assert bob_daemon.stop() == 0, bob_daemon.output()
    picker.wait_line(lambda l: re.match(r"  \d+\) DaBob \(\w+\) — paired, away: a send is queued$", l) is not None,
                     60, start=mark)
    picker.send("/quit")
    assert picker.wait_exit(10) == 0, picker.output() + ada_daemon.output()
