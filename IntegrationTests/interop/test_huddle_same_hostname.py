"""Issue 35: two test hosts of one host name (network namespaces share the machine's UTS name, as two Raspberry
Pis are both `raspberrypi`) chat with nothing but the README's commands: no --host, no --interface. Their
interfaces are named eth0, as on a machine, so Huddle's default filter takes them.

Both sessions claim `<host>-huddle.local`; one becomes `<host>-huddle-2.local` (docs/mdns.md B10). The loser of the
simultaneous probe used to answer for its service while its host name was probed again, so the other side
resolved it to the name it had won, its own address, dialled itself and gave up: `! could not connect to user-a:
the peer closed the connection (refused)`. It happened in about half the runs; three rounds make it likely.
"""

from __future__ import annotations

import os

import pytest

from huddle_cli import huddle_bin
from test_huddle_chat import code_of
from test_huddle_clip import xdisplays  # noqa: F401 (the fixture)
from testbed import wait_until

ROUNDS = 3


def plain_chat(host, name: str, home: str):
    """`huddle chat --name NAME` as the README has it, with its own HUDDLE_HOME; stdin is a pipe. Not waited
    for: both start together, so that both probe for the host name at once (RFC 6762 §8.2)."""
    env = dict(os.environ, HUDDLE_HOME=home)
    return host.spawn(huddle_bin(), "chat", "--name", name, label=f"{host.letter}:chat {name}", stdin=True, env=env)


@pytest.mark.hosts(2, ifname="eth0")
def test_two_hosts_of_one_host_name_pair_and_chat_without_host_or_interface(testbed, huddle, homes):
    """Both show one code, both answer y, both end connected, and a line goes each way; no dial fails."""
    a, b = testbed[0], testbed[1]
    assert a.run("hostname").stdout == b.run("hostname").stdout, "the hosts share one UTS host name"
    for round_ in range(ROUNDS):
        ua = plain_chat(a, "user-a", homes(f"a{round_}"))
        ub = plain_chat(b, "user-b", homes(f"b{round_}"))
        procs = (ua, ub)
        for proc in procs:
            proc.wait_line(lambda l: l.startswith("Chatting in"), 15)

        def said(text: str) -> list[bool]:
            return [any(text in l for _, l in p.lines) for p in procs]
        wait_until(lambda: all(said("? pair with")) or any(said("could not connect")), 20,
                   what="the code on both sides, or a failed dial")
        assert not any(said("could not connect")), "\n".join(p.output() for p in procs)
        assert code_of(ua) == code_of(ub)
        ua.send("y")
        ub.send("y")
        ua.wait_line(lambda l: l == "* connected to user-b", 15)
        ub.wait_line(lambda l: l == "* connected to user-a", 15)
        ua.send(f"from a, round {round_}")
        ub.wait_line(lambda l, r=round_: l == f"user-a: from a, round {r}", 5)
        ub.send(f"from b, round {round_}")
        ua.wait_line(lambda l, r=round_: l == f"user-b: from b, round {r}", 5)
        assert not any(l.startswith("!") for p in procs for _, l in p.lines), "\n".join(p.output() for p in procs)
        for proc in procs:
            assert proc.stop() == 0, proc.output()


@pytest.mark.hosts(2, ifname="eth0")
def test_clip_sync_between_two_hosts_of_one_host_name(testbed, huddle, homes, xdisplays):
    """`huddle clip sync --trust-on-first-use` on both, started together: they connect, and a copied text
    reaches the other clipboard each way."""
    names, displays = ["user-a", "user-b"], [xdisplays(), xdisplays()]
    procs = [testbed[i].spawn(huddle_bin(), "clip", "sync", "--name", names[i], "--trust-on-first-use",
                              label=f"{testbed[i].letter}:clip sync", env=displays[i].env(HUDDLE_HOME=homes(names[i])))
             for i in range(2)]

    def said(text: str) -> list[bool]:
        return [any(text in l for _, l in p.lines) for p in procs]
    wait_until(lambda: (said("+ user-b connected")[0] and said("+ user-a connected")[1])
               or any(said("could not connect")), 30, what="both connected, or a failed dial")
    assert not any(said("could not connect")), "\n".join(p.output() for p in procs)
    displays[0].copy("from a ✓".encode())
    displays[1].wait_for("from a ✓".encode(), "UTF8_STRING")
    displays[1].copy(b"from b")
    displays[0].wait_for(b"from b", "UTF8_STRING")
    for proc in procs:
        assert proc.stop() == 0, proc.output()


@pytest.mark.hosts(2, ifname="eth0")
def test_a_pairing_link_pairs_two_hosts_of_one_host_name_and_they_then_chat(testbed, huddle, homes):
    """`huddle pair` on one host and `huddle pair -` with its link on the other, as the README has them (no
    --host, no --interface): both end paired as verified, then `huddle chat` on each connects to the other by its
    pin, with no code asked, although both hosts call themselves the same."""
    a, b = testbed[0], testbed[1]
    assert a.run("hostname").stdout == b.run("hostname").stdout, "the hosts share one UTS host name"
    env_a, env_b = dict(os.environ, HUDDLE_HOME=homes("a")), dict(os.environ, HUDDLE_HOME=homes("b"))
    issuer = a.spawn(huddle_bin(), "pair", "--name", "user-a", label="a:pair", env=env_a)
    link = issuer.wait_line(lambda l: l.startswith("huddle:pair?"), 15)
    assert f"a={a.ipv4}:47474" in link, link
    joiner = b.spawn(huddle_bin(), "pair", "-", "--name", "user-b", label="b:pair -", stdin=True, env=env_b)
    joiner.send(link)
    joiner.wait_line(lambda l: l.startswith("* paired with user-a (") and l.endswith("verified"), 30)
    assert joiner.wait_exit(15) == 0, joiner.output()
    issuer.wait_line(lambda l: l.startswith("* paired with user-b (") and l.endswith("verified"), 10)
    assert issuer.wait_exit(15) == 0, issuer.output()

    ua = plain_chat(a, "user-a", homes("a"))
    ub = plain_chat(b, "user-b", homes("b"))
    ua.wait_line(lambda l: l == "* connected to user-b", 30)
    ub.wait_line(lambda l: l == "* connected to user-a", 15)
    ua.send("from a")
    ub.wait_line(lambda l: l == "user-a: from a", 5)
    procs = (ua, ub)
    assert not any("? pair with" in l or l.startswith("!") for p in procs for _, l in p.lines), \
        "\n".join(p.output() for p in procs)
    for proc in procs:
        assert proc.stop() == 0, proc.output()
