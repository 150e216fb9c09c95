"""Issue 7: a peer that stops reading holds up only its own lines.

Three chats; Cy is stopped (SIGSTOP) while Ada pastes 20,000 lines of 500 bytes (10 MB) — about twice what the
kernel and connection buffers towards Cy and Ada's queue to Cy hold together (about 4.8 MB: with a 5 MB paste,
runs showed 260–540 lines dropped, and one full run none, so the rule went untested).
Bob, who reads, shows every line, in order, while Cy is still stopped; once Cy continues it shows what was queued
for it, in order and each once. A queue of 4,096 lines per peer is the limit: when Cy's is full, Bob has taken
every line he was given and Cy has taken nothing for 2 s, Ada says that Cy is not reading and drops lines to Cy
only. A full queue to a peer that is still reading holds up the paste instead: no line to Bob is ever dropped,
however loaded the machine (a CI run of an older outbox, which dropped lines to any full queue, lost 1,007 of
Bob's lines; a rule that counted lines without a clock could wait for Cy for good once Bob had caught up).
"""

from __future__ import annotations

import os
import signal
import time

import pytest

import faults
from testbed import TestbedError as NoMatchYet
from test_huddle_chat import chat
from test_huddle_faults import lines_from

pytestmark = pytest.mark.full  # the full run only (scripts/test --full)

COUNT = 10_000
STALLED_COUNT = 20_000
WIDTH = 500


def pasted(i: int) -> str:
    return f"{i:05d} " + "x" * (WIDTH - 6)


@pytest.mark.hosts(3)
def test_a_stopped_peer_does_not_hold_up_the_others(testbed, huddle, homes):
    names = ["Ada", "Bob", "Cy"]
    # Small TCP buffers on Ada's and Cy's hosts: with the kernel's defaults, the buffers towards a stopped Cy take
    # most of the 5 MB paste and Cy's queue never fills, so the rule that drops lines to it would go untested.
    for host in (testbed[0], testbed[2]):
        faults.small_tcp_buffers(host)
    procs = [chat(testbed[i], names[i], homes(names[i]), "--yes", "--disconnect-timeout", "60") for i in range(3)]
    for i, proc in enumerate(procs):
        for j, other in enumerate(names):
            if i != j:
                proc.wait_line(lambda l, other=other: l == f"* connected to {other}", 30)
    ada, bob, cy = procs
    mark_b, mark_c = bob.mark(), cy.mark()
    os.kill(cy.pid, signal.SIGSTOP)
    try:
        start = time.monotonic()
        ada.proc.stdin.write("".join(pasted(i) + "\n" for i in range(STALLED_COUNT)))
        ada.proc.stdin.flush()
        bob.wait_line(lambda l: l == f"Ada: {pasted(STALLED_COUNT - 1)}", 60, start=mark_b)
        took = time.monotonic() - start
        assert cy.proc.poll() is None
    finally:
        os.kill(cy.pid, signal.SIGCONT)
    print(f"Bob showed all {STALLED_COUNT} lines ({STALLED_COUNT * WIDTH / 1e6:.1f} MB) in {took:.1f} s "
          "while Cy was stopped")
    assert lines_from(bob, "Ada", mark_b) == [pasted(i) for i in range(STALLED_COUNT)]

    dropped = any("Cy is not reading" in l for _, l in ada.lines)
    # A marker typed after the paste reaches Cy after everything queued for it: once Cy shows one, Cy has shown all
    # it will (lines dropped while it was stopped never come). While Ada still counts Cy as not reading (its queue
    # full, nothing taken yet since it continued), a marker is dropped too, so one goes every 5 s until one shows.
    for attempt in range(12):
        ada.proc.stdin.write(f"marker {attempt}\n")
        ada.proc.stdin.flush()
        try:
            cy.wait_line(lambda l: l.startswith("Ada: marker "), 5, start=mark_c)
            break
        except NoMatchYet:
            continue
    else:
        pytest.fail("no marker reached Cy within 60 s of it continuing")
    got = [int(line[:5]) for line in lines_from(cy, "Ada", mark_c) if line[:5].isdigit()]
    print(f"Cy showed {len(got)} of {STALLED_COUNT} lines after it continued; Ada reported dropping: {dropped}")
    assert got == sorted(set(got)), "Cy's lines are in order and each once"
    assert dropped, "Cy's queue filled and Ada said Cy was not reading: " + ada.output()[-2000:]
    assert 4096 <= len(got) < STALLED_COUNT
    for proc in procs:
        assert proc.stop() == 0, proc.output()


@pytest.mark.hosts(2)
def test_a_paste_faster_than_the_link_reaches_a_reading_peer_whole(testbed, huddle, homes):
    """Ada's link is held to 8 Mbit/s, so her queue to Bob (4,096 lines) fills long before 10,000 pasted lines
    of 500 bytes have gone: the paste waits for room, Bob shows every line in order, nothing is reported dropped.
    (The older outbox dropped every line that found the queue full.)"""
    names = ["Ada", "Bob"]
    procs = [chat(testbed[i], names[i], homes(names[i]), "--yes") for i in range(2)]
    for proc, other in zip(procs, reversed(names)):
        proc.wait_line(lambda l, other=other: l == f"* connected to {other}", 30)
    ada, bob = procs
    faults.rate_limit(testbed[0], 8)
    mark_b = bob.mark()
    start = time.monotonic()
    ada.proc.stdin.write("".join(pasted(i) + "\n" for i in range(COUNT)))
    ada.proc.stdin.flush()
    bob.wait_line(lambda l: l == f"Ada: {pasted(COUNT - 1)}", 90, start=mark_b)
    took = time.monotonic() - start
    print(f"Bob showed all {COUNT} lines ({COUNT * WIDTH / 1e6:.1f} MB) in {took:.1f} s through 8 Mbit/s")
    assert took >= COUNT * WIDTH * 8 / 8e6 * 0.8, "the link limit was not in force"
    assert lines_from(bob, "Ada", mark_b) == [pasted(i) for i in range(COUNT)]
    assert not any("not reading" in l for _, l in ada.lines), ada.output()
    for proc in procs:
        assert proc.stop() == 0, proc.output()
