"""Issue 39: the example game, `huddle-arena`, between two test hosts that drop 10 % of the UDP each receives (mDNS
spared), run as the README shows it: no --name, no --host, hosts that share one host name. Each side runs two bots
for 15 s; both must end with one other peer, every final, the same digest of the game's state, and at least 20
state updates a second from the other side.
"""

from __future__ import annotations

import json
import os

import pytest

from huddle_cli import huddle_bin
from test_huddle_ping import drop_udp, dropped


def arena_bin() -> str:
    return os.path.join(os.path.dirname(huddle_bin()), "huddle-arena")


def player(host, homes, who: str):
    home = homes(who)
    env = dict(os.environ, HOME=home, HUDDLE_HOME=home)
    return host.spawn(arena_bin(), "--bots", "2", "--duration", "15", "--json", "--yes",
                      label=f"{host.letter}:arena", env=env)


@pytest.mark.hosts(2, ifname="eth0")
def test_two_arenas_with_bots_agree_on_the_game_across_a_lossy_link(testbed, huddle, homes):
    a, b = testbed[0], testbed[1]
    tables = {a: drop_udp(a, 10), b: drop_udp(b, 10)}
    one, two = player(a, homes, "ArenaOne"), player(b, homes, "ArenaTwo")
    results = []
    for proc in (one, two):
        assert proc.wait_exit(90) == 0, proc.output()
        lines = [line for _, line in list(proc.lines) if line.strip()]
        assert lines, proc.output()
        results.append(json.loads(lines[-1]))
    print(f"huddle-arena over 10 % UDP loss each way: {results}")
    for result in results:
        assert result["event"] == "result" and result["peers"] == 1 and result["complete"], results
        assert result["updatesPerSecond"] >= 20, results
        assert result["malformed"] == 0, results
        assert result["ticks"] >= 15 * 40 * 0.8, results
    assert results[0]["stateDigest"] == results[1]["stateDigest"], results
    assert len(results[0]["stateDigest"]) == 64
    assert results[0]["coinsWon"] == results[1]["coinsWon"] > 0, results
    assert dropped(a, tables[a]) > 0 and dropped(b, tables[b]) > 0
