"""docs/threat-model.md, "Foreign peers": a host that opens 1,200 connections to `huddle receive`'s LocalSend port
and 600 to its KDE Connect port, and says nothing, holds its own share of each listener (16 and 8) and no more.
The receiver runs with the usual limit of 1,024 descriptors, stays up, and a file from localsendd on another host
arrives meanwhile (full tier)."""

from __future__ import annotations

import os

import pytest

from huddle_cli import huddle_bin
from test_huddle_localsend import random_file, sha256

pytestmark = pytest.mark.full
FLOOD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers", "idle_flood.py")


@pytest.mark.hosts(3, default_route=True)
def test_idle_connection_floods_hold_their_share_and_a_file_from_another_host_arrives(testbed, localsendd, homes):
    a, b, c = testbed.hosts
    peer = localsendd(b, "ld-b")
    inbox = homes("inbox")
    huddle = [huddle_bin(), "receive", "--dir", inbox, "--yes", "--count", "1", "--json", "--name", "Ada",
              "--host", "huddle-a", "--interface", a.ifname]
    argv = ["sh", "-c", 'ulimit -n 1024 && exec "$@"', "sh", *huddle]
    receiver = a.spawn(*argv, label="a:receive", env=dict(os.environ, HUDDLE_HOME=homes("a")))
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    peer.wait_device("Ada", timeout=15)

    flood = c.spawn("python3", FLOOD, a.ipv4, "60", "53317:1200", "1716:600", label="c:flood")
    held = {}
    mark = 0
    for _ in range(2):
        line = flood.wait_line(lambda l: l.startswith("held "), 120, start=mark)
        mark = flood.lines.index(next(x for x in flood.lines if x[1] == line)) + 1
        _, port, count, _, opened = line.split()
        held[int(port)] = (int(count), int(opened))
    assert held[53317][0] <= 16 and held[53317][1] >= 1000, held
    assert held[1716][0] <= 8 and held[1716][1] >= 500, held

    # While the flood's share is held, a file from another host arrives.
    path, digest = random_file(homes("files"), "during.bin", 200_000)
    result = peer.send(path, "Ada", timeout=30)
    assert result.ok, result
    got = receiver.wait_event(lambda e: e.get("event") == "received", 20)
    assert sha256(got["path"]) == digest
    assert receiver.wait_exit(15) == 0, receiver.output()
    print(f"held by the flood: {held}")
