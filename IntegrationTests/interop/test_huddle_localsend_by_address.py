"""Issue 38: `--peer HOST` reaches a LocalSend device too, where LocalSend's multicast does not get through.

localsendd (an independent LocalSend implementation) runs on Bob's host; Ada's host drops every packet to and
from LocalSend's multicast group (224.0.0.167), so neither side's announcements arrive (nor the unicast
registration that answers one). `huddle send F --to ld-b` finds no
such device; with `--peer BOB_ADDRESS` the address is asked who it is (`/info` at 53317, its certificate's
fingerprint checked) and the file arrives byte for byte; a daemon given the address in config.toml lists the
device in `huddle peers`.
"""

from __future__ import annotations

import json
import os

import pytest

from test_huddle_daemon import User, said
from test_huddle_transfer import make_file, sha256
from testbed import wait_until

DROP_MULTICAST = """
table inet hdlsaddr {
    chain input {
        type filter hook input priority 0; policy accept;
        ip daddr 224.0.0.167 drop
    }
    chain output {
        type filter hook output priority 0; policy accept;
        ip daddr 224.0.0.167 drop
    }
}
"""


@pytest.mark.hosts(2, ifname="eth0", default_route=True)
def test_peer_reaches_a_localsend_device_that_multicast_does_not(testbed, localsendd, homes):
    a, b = testbed[0], testbed[1]
    a.run("sh", "-c", f"nft -f - <<'RULES'\n{DROP_MULTICAST}\nRULES")
    peer = localsendd(b, "ld-b")
    ada = User(a, homes, "DaAda")
    path = os.path.join(homes("files"), "by-address.bin")
    digest = make_file(path, 300_000)

    lost = ada.run("send", path, "--to", "ld-b", "--wait", "6")
    assert lost.wait_exit(30) != 0, lost.output()
    assert said(lost, "no peer called ld-b"), lost.output()

    send = ada.run("send", path, "--to", "ld-b", "--peer", b.ipv4, "--wait", "15")
    assert send.wait_exit(60) == 0, send.output()
    assert said(send, f"sent by-address.bin to ld-b (LocalSend, fingerprint {peer.fingerprint[:8]}"), send.output()
    assert sha256(peer.wait_file("by-address.bin", timeout=10, size=300_000)) == digest

    config = os.path.join(ada.home, ".config", "huddle", "config.toml")
    os.makedirs(os.path.dirname(config))
    with open(config, "w") as f:
        f.write(f'peer = ["{b.ipv4}"]\n')
    daemon = ada.run("daemon")
    daemon.wait_line(lambda l: l.startswith("huddle daemon:"), 20)

    def listed() -> dict | None:
        peers = ada.run("peers", "--json")
        assert peers.wait_exit(20) == 0, peers.output()
        return next((r for r in map(json.loads, (l for _, l in peers.lines)) if r["name"] == "ld-b"), None)
    record = wait_until(listed, 30, what="ld-b in huddle peers through the daemon, found by address")
    assert record["protocol"] == "localsend" and record["here"], record
    assert peer.fingerprint.upper().startswith(record["id"].upper()), record
    assert daemon.stop() == 0, daemon.output()
