"""Issue 7: outages between chatting test hosts — a link down for 10 s, a peer "sleeping" (SIGSTOP, then SIGCONT),
a peer killed and started again.

A silence shorter than `--disconnect-timeout` is ridden out: lines typed meanwhile arrive afterwards, once and in
order, and nobody is reported gone. A longer one is reported within the timeout (plus a little for the timer's
granularity), typing then says plainly that nobody is connected, and the pinned peers reconnect by themselves,
without a code, when the silence ends; lines written into the dead connection before it was reported are sent
again on the new one and shown once. Discovery forgets a killed peer once other hosts' queries go unanswered
(RFC 6762 §10.5) and finds it again when it comes back.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

import faults
from huddle_cli import discover
from test_huddle_chat import chat, pair
from test_huddle_faults import lines_from
from testbed import wait_until

SLACK = 2.5  # seconds beyond the timeout: the silence timer's granularity and the machine's load


def connected_again(ada, bob, mark_a: int, mark_b: int, timeout: float) -> None:
    """Both print "* connected to" after their marks, with no first-contact code (they are pinned)."""
    ada.wait_line(lambda l: l == "* connected to Bob", timeout, start=mark_a)
    bob.wait_line(lambda l: l == "* connected to Ada", timeout, start=mark_b)
    for proc, mark in ((ada, mark_a), (bob, mark_b)):
        assert not any("first contact" in l for _, l in proc.lines[mark:]), proc.output()


def exchange(ada, bob, tag: str) -> None:
    """One line each way arrives."""
    mark_a, mark_b = ada.mark(), bob.mark()
    ada.send(f"from Ada {tag}")
    bob.send(f"from Bob {tag}")
    bob.wait_line(lambda l: l == f"Ada: from Ada {tag}", 10, start=mark_b)
    ada.wait_line(lambda l: l == f"Bob: from Bob {tag}", 10, start=mark_a)


@pytest.mark.hosts(2)
def test_link_down_for_10_s_within_the_timeout_loses_nothing(testbed, huddle, homes):
    """Timeout 30 s, link down 10 s: five lines typed during the outage arrive after it, in order; nobody is
    reported gone."""
    a, b = testbed[0], testbed[1]
    ada = chat(a, "Ada", homes("a"), "--disconnect-timeout", "30")
    bob = chat(b, "Bob", homes("b"), "--disconnect-timeout", "30")
    pair(ada, bob, "Ada", "Bob")
    exchange(ada, bob, "before")
    faults.link(a, False)
    try:
        for i in range(5):
            ada.send(f"during {i}")
            time.sleep(0.5)
        time.sleep(7.5)
    finally:
        faults.link(a, True)
    up = time.monotonic()
    arrived, _ = bob.wait_line_at(lambda l: l == "Ada: during 4", 20)
    assert lines_from(bob, "Ada") == ["from Ada before"] + [f"during {i}" for i in range(5)]
    print(f"lines typed during the outage arrived {arrived - up:.1f} s after the link came back")
    exchange(ada, bob, "after")
    for proc in (ada, bob):
        assert not any("left the chat" in l or "is gone" in l for _, l in proc.lines), proc.output()


@pytest.mark.full
@pytest.mark.hosts(2)
def test_link_down_for_10_s_beyond_the_timeout_is_reported_and_both_reconnect(testbed, huddle, homes):
    """Timeout 3 s, link down 10 s: both sides report the other gone within 3 + 2.5 s, a line typed then is
    refused in plain words, and after the link is back they reconnect without a code and chat."""
    a, b = testbed[0], testbed[1]
    ada = chat(a, "Ada", homes("a"), "--disconnect-timeout", "3")
    bob = chat(b, "Bob", homes("b"), "--disconnect-timeout", "3")
    pair(ada, bob, "Ada", "Bob")
    mark_a, mark_b = ada.mark(), bob.mark()
    faults.link(a, False)
    down = time.monotonic()
    try:
        t_bob, _ = bob.wait_line_at(lambda l: l == "* Ada left the chat", 10, start=mark_b)
        t_ada, _ = ada.wait_line_at(lambda l: l == "* Bob left the chat", 10, start=mark_a)
        ada.send("into the void")
        ada.wait_line(lambda l: l == "(nobody is connected yet)", 5, start=mark_a)
        time.sleep(max(0.0, 10 - (time.monotonic() - down)))
    finally:
        faults.link(a, True)
    up = time.monotonic()
    print(f"reported gone after {t_bob - down:.1f} s (Bob) and {t_ada - down:.1f} s (Ada)")
    assert t_bob - down <= 3 + SLACK and t_ada - down <= 3 + SLACK
    wait_until(lambda: testbed._link_local(a), 10, what="link-local address back")
    connected_again(ada, bob, mark_a, mark_b, 40)
    print(f"connected again {time.monotonic() - up:.1f} s after the link came back")
    exchange(ada, bob, "after")
    assert "into the void" not in lines_from(bob, "Ada")


@pytest.mark.full
@pytest.mark.hosts(2)
def test_lines_written_into_a_dead_link_arrive_once_after_the_reconnect(testbed, huddle, homes):
    """Timeout 3 s, link down 10 s. Three lines Ada types in the first second of the outage are written into a
    connection that can no longer carry them; nobody acknowledges them, so when the link is back and the pinned
    peers reconnect, Ada sends them again first: Bob shows each once, in order, before what follows, and Ada
    reports nothing lost."""
    a, b = testbed[0], testbed[1]
    ada = chat(a, "Ada", homes("a"), "--disconnect-timeout", "3")
    bob = chat(b, "Bob", homes("b"), "--disconnect-timeout", "3")
    pair(ada, bob, "Ada", "Bob")
    exchange(ada, bob, "before")
    mark_a, mark_b = ada.mark(), bob.mark()
    faults.link(a, False)
    down = time.monotonic()
    try:
        for i in range(3):
            ada.send(f"stranded {i}")
            time.sleep(0.2)
        bob.wait_line(lambda l: l == "* Ada left the chat", 10, start=mark_b)
        ada.wait_line(lambda l: l == "* Bob left the chat", 10, start=mark_a)
        assert not any(l.startswith("Ada: stranded") for _, l in bob.lines[mark_b:]), bob.output()
        time.sleep(max(0.0, 10 - (time.monotonic() - down)))
    finally:
        faults.link(a, True)
    up = time.monotonic()
    wait_until(lambda: testbed._link_local(a), 10, what="link-local address back")
    connected_again(ada, bob, mark_a, mark_b, 40)
    arrived, _ = bob.wait_line_at(lambda l: l == "Ada: stranded 2", 20, start=mark_b)
    print(f"the stranded lines arrived {arrived - up:.1f} s after the link came back")
    exchange(ada, bob, "after")
    assert lines_from(bob, "Ada") == ["from Ada before", "stranded 0", "stranded 1", "stranded 2", "from Ada after"]
    assert not any("did not arrive" in l for _, l in ada.lines), ada.output()


@pytest.mark.full
@pytest.mark.hosts(2)
def test_a_sleeping_peer_is_reported_after_the_timeout_and_reconnects_when_it_wakes(testbed, huddle, homes):
    """Timeout 3 s. Bob stopped for 1 s (SIGSTOP, SIGCONT): nothing reported, Ada's lines arrive. Stopped for
    10 s: Ada reports him gone within 3 + 2.5 s; once continued, both reconnect without a code and chat."""
    a, b = testbed[0], testbed[1]
    ada = chat(a, "Ada", homes("a"), "--disconnect-timeout", "3")
    bob = chat(b, "Bob", homes("b"), "--disconnect-timeout", "3")
    pair(ada, bob, "Ada", "Bob")
    os.kill(bob.pid, signal.SIGSTOP)
    try:
        ada.send("while you nap")
        time.sleep(1)
    finally:
        os.kill(bob.pid, signal.SIGCONT)
    bob.wait_line(lambda l: l == "Ada: while you nap", 10)
    exchange(ada, bob, "awake")
    mark_a = ada.mark()
    os.kill(bob.pid, signal.SIGSTOP)
    stopped = time.monotonic()
    try:
        t_gone, _ = ada.wait_line_at(lambda l: l == "* Bob left the chat", 10, start=mark_a)
        time.sleep(max(0.0, 10 - (time.monotonic() - stopped)))
        mark_b = bob.mark()
    finally:
        os.kill(bob.pid, signal.SIGCONT)
    woke = time.monotonic()
    print(f"Ada reported the sleeping Bob gone after {t_gone - stopped:.1f} s")
    assert t_gone - stopped <= 3 + SLACK
    connected_again(ada, bob, mark_a, mark_b, 40)
    print(f"connected again {time.monotonic() - woke:.1f} s after Bob woke")
    exchange(ada, bob, "after")


@pytest.mark.full
@pytest.mark.hosts(3)
def test_a_killed_peer_is_forgotten_by_discovery_and_found_again_when_it_returns(testbed, huddle, homes):
    """Bob is SIGKILLed (no goodbye). Ada reports him gone from the chat within the timeout; when a third host
    browses and nobody answers for Bob, Ada's discovery forgets him (RFC 6762 §10.5). Bob started again is found
    and reconnected without a code."""
    a, b, c = testbed[0], testbed[1], testbed[2]
    ada = chat(a, "Ada", homes("a"), "--disconnect-timeout", "3")
    bob = chat(b, "Bob", homes("b"), "--disconnect-timeout", "3")
    pair(ada, bob, "Ada", "Bob")
    mark_a = ada.mark()
    os.kill(bob.pid, signal.SIGKILL)
    killed = time.monotonic()
    t_left, _ = ada.wait_line_at(lambda l: l == "* Bob left the chat", 10, start=mark_a)
    browser = discover(c, "_typingtogether._tcp", timeout=40)
    t_gone, _ = ada.wait_line_at(lambda l: l == "* Bob is gone", 35, start=mark_a)
    print(f"left the chat after {t_left - killed:.1f} s, forgotten by discovery after {t_gone - killed:.1f} s")
    assert t_left - killed <= 3 + SLACK
    browser.stop()
    mark_a = ada.mark()
    bob = chat(b, "Bob", homes("b"), "--disconnect-timeout", "3")
    ada.wait_line(lambda l: l.startswith("* Bob (") and l.endswith("is here"), 15, start=mark_a)
    connected_again(ada, bob, mark_a, 0, 30)
    exchange(ada, bob, "again")
