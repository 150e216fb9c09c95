"""Issue 39: lobby metadata. `huddle chat --lobby KEY=VALUE` advertises it in the TXT record; `huddle peers --json`
on another test host delivers it with the found peer, Avahi's browser reads it there too, and chat's `/lobby`
changes it live: an advert update (RFC 6762 §8.4), the same peer found again, not a restart.

Run as the README shows: no --host, no --interface, hosts that share one host name.
"""

from __future__ import annotations

import json

import pytest

from avahi_peer import resolved
from test_huddle_daemon import User

SESSION_TYPE = "_typingtogether._tcp"


def found_lobbies(peers, name: str) -> list[dict]:
    """The lobby of each `found` record for `name` that `huddle peers --json` printed so far."""
    lobbies = []
    for _, line in list(peers.lines):
        if line.startswith("{") and '"found"' in line:
            record = json.loads(line)
            if record.get("name") == name:
                lobbies.append(record["lobby"])
    return lobbies


@pytest.mark.hosts(2, ifname="eth0")
def test_a_lobby_is_advertised_found_with_the_peer_and_updated_live(testbed, huddle, homes, avahi):
    a, b = testbed[0], testbed[1]
    bob, ada = User(b, homes, "LoBob"), User(a, homes, "LoAda")
    chat = bob.run("chat", "--name", "LoBob", "--lobby", "players=1", "--lobby", "capacity=4", stdin=True)
    chat.wait_line(lambda l: "LoBob" in l, 20)
    peers = ada.run("peers", "--json", "--name", "LoAda", stdin=True)  # it runs until its input ends
    peers.wait_line(lambda l: '"found"' in l and '"LoBob"' in l, 30)
    assert found_lobbies(peers, "LoBob")[0] == {"players": "1", "capacity": "4"}, peers.output()

    # Another Bonjour stack on Ada's host reads the same TXT strings.
    av = avahi(a)
    entries = av.browse_until(SESSION_TYPE, lambda es: resolved(es, "LoBob"), timeout=20)
    txt = resolved(entries, "LoBob")[0]["txt"]
    assert txt.get("players") == "1" and txt.get("capacity") == "4", txt

    # Live: Bob's chat changes the lobby; Ada's running peers finds LoBob again with it.
    chat.send("/lobby players=2")
    chat.wait_line(lambda l: l == "* advertising: capacity=4 players=2", 10)
    peers.wait_line(lambda l: '"found"' in l and '"players":"2"' in l.replace(" ", ""), 30)
    assert found_lobbies(peers, "LoBob")[-1] == {"players": "2", "capacity": "4"}, peers.output()
    av.browse_until(SESSION_TYPE, lambda es: any(e["txt"].get("players") == "2" for e in resolved(es, "LoBob")),
                    timeout=20)

    # A key the protocol keeps is refused in words, and nothing changes.
    chat.send("/lobby id=7")
    chat.wait_line(lambda l: l.startswith("! lobby key 'id'"), 10)
    bad = bob.run("chat", "--name", "LoBob2", "--lobby", "players")
    assert bad.wait_exit(20) == 64, bad.output()
    assert any("lobby refused: 'players' is not KEY=VALUE" in l for l in bad.err_lines), bad.err_lines
    chat.send("/quit")
    assert chat.wait_exit(20) == 0, chat.output()
    peers.stop()
