"""Issue 3: `huddle chat` between test hosts — discovery, the six-digit code, accept / deny, messages,
reconnect without a code, a killed peer, three peers, and a pinned peer whose key changed.

Each host gets its own identity (HUDDLE_HOME in a temporary directory): the namespaces share one file system.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time

import pytest

from huddle_cli import huddle_bin

CODE = re.compile(r"Code: (\d{3} \d{3})")


def chat(host, name: str, home: str, *extra: str):
    """`huddle chat --name NAME` in host with its own HUDDLE_HOME; stdin is a pipe."""
    env = dict(os.environ, HUDDLE_HOME=home)
    argv = [huddle_bin(), "chat", "--name", name, "--host", f"huddle-{host.letter}",
            "--interface", host.ifname, *extra]
    proc = host.spawn(*argv, label=f"{host.letter}:chat {name}", stdin=True, env=env)
    proc.wait_line(lambda l: l.startswith("Chatting in"), 15)
    return proc


def code_of(proc, timeout: float = 20, start: int = 0) -> str:
    """The six-digit code a chat shows at first contact."""
    line = proc.wait_line(lambda l: l.startswith("? pair with "), timeout, start)
    return CODE.search(line).group(1)


def pair(a, b, a_name: str, b_name: str) -> str:
    """Both show the same code and accept; both end connected. Returns the code."""
    code_a, code_b = code_of(a), code_of(b)
    assert code_a == code_b, (code_a, code_b)
    a.send("y")
    b.send("y")
    a.wait_line(lambda l: l == f"* connected to {b_name}", 15)
    b.wait_line(lambda l: l == f"* connected to {a_name}", 15)
    return code_a


def trusted(home: str) -> list[str]:
    """`huddle trust list --json` for a data directory, as lines."""
    out = subprocess.run([huddle_bin(), "trust", "list", "--json", "--data-dir", home],
                         capture_output=True, text=True, timeout=10, check=True).stdout
    return [line for line in out.splitlines() if line.strip()]


@pytest.mark.hosts(2)
def test_two_hosts_compare_code_connect_and_chat(testbed, huddle, homes):
    """Same code on both screens, both accept, lines go both ways, /quit is seen as leaving."""
    a, b = testbed[0], testbed[1]
    ada = chat(a, "Ada", homes("a"))
    bob = chat(b, "Bob", homes("b"))
    ada.wait_line(lambda l: l.startswith("* Bob (") and l.endswith("is here"), 15)
    pair(ada, bob, "Ada", "Bob")
    ada.send("hello from Ada")
    bob.wait_line(lambda l: l == "Ada: hello from Ada", 5)
    bob.send("hi Ada, ünïcode ✓")
    ada.wait_line(lambda l: l == "Bob: hi Ada, ünïcode ✓", 5)
    for i in range(20):
        ada.send(f"line {i}")
    bob.wait_line(lambda l: l == "Ada: line 19", 5)
    got = [l for _, l in bob.lines if l.startswith("Ada: line ")]
    assert got == [f"Ada: line {i}" for i in range(20)], got
    assert '"trust":"verified"' in trusted(homes("a"))[0]
    ada.send("/quit")
    bob.wait_line(lambda l: l == "* Ada left the chat", 5)
    assert ada.wait_exit(10) == 0, ada.output()


@pytest.mark.hosts(2)
def test_deny_refuses_and_pins_nothing(testbed, huddle, homes):
    """One side answers n: no connection, and neither trust store gains an entry."""
    a, b = testbed[0], testbed[1]
    ada = chat(a, "Ada", homes("a"))
    bob = chat(b, "Bob", homes("b"))
    code_of(ada)
    code_of(bob)
    bob.send("n")
    bob.wait_line(lambda l: l == "* refused Ada", 5)
    both = [ada, bob]
    for proc in both:
        proc.wait_line(lambda l: "refused" in l or "denied" in l, 10)
    assert not any("connected to" in l for p in both for _, l in p.lines)
    assert trusted(homes("a")) == [] and trusted(homes("b")) == []


@pytest.mark.hosts(2)
def test_paired_peer_reconnects_without_code_and_killed_peer_is_reported(testbed, huddle, homes):
    """After pairing, a restarted peer reconnects with no code; a SIGKILLed one is reported gone in time."""
    a, b = testbed[0], testbed[1]
    ada = chat(a, "Ada", homes("a"), "--disconnect-timeout", "3")
    bob = chat(b, "Bob", homes("b"), "--disconnect-timeout", "3")
    pair(ada, bob, "Ada", "Bob")
    ada.stop()
    bob.wait_line(lambda l: l == "* Ada left the chat", 10)
    mark = len(bob.lines)  # before the restart: the new instance may connect before chat() returns
    ada = chat(a, "Ada", homes("a"), "--disconnect-timeout", "3")
    ada.wait_line(lambda l: l == "* connected to Bob", 20)
    bob.wait_line(lambda l: l == "* connected to Ada", 20, start=mark)
    assert not any("? pair with" in l for _, l in ada.lines)
    assert not any("? pair with" in l for _, l in bob.lines[mark:])
    ada.send("back again")
    bob.wait_line(lambda l: l == "Ada: back again", 5)
    mark = len(bob.lines)
    t0 = time.monotonic()
    os.kill(ada.pid, signal.SIGKILL)
    t, _ = bob.wait_line_at(lambda l: l == "* Ada left the chat", 10, start=mark)
    assert t - t0 <= 3 + 2, f"reported after {t - t0:.1f}s with a 3 s disconnect timeout"


@pytest.mark.hosts(3)
def test_three_hosts_all_connect_and_everyone_hears_everyone(testbed, huddle, homes):
    """Three chats with --yes: every pair connects once, and a line reaches both others."""
    names = ["Ada", "Bob", "Cy"]
    procs = [chat(testbed[i], names[i], homes(names[i]), "--yes") for i in range(3)]
    for i, proc in enumerate(procs):
        for j, other in enumerate(names):
            if i != j:
                proc.wait_line(lambda l, other=other: l == f"* connected to {other}", 30)
    procs[1].send("from Bob")
    procs[0].wait_line(lambda l: l == "Bob: from Bob", 5)
    procs[2].wait_line(lambda l: l == "Bob: from Bob", 5)
    for proc in procs:
        assert sum(1 for _, l in proc.lines if l.startswith("* connected to")) == 2, proc.output()
    # --yes means nobody compared a code: the pins are trust-on-first-use, not verified.
    pins = trusted(homes("Ada"))
    assert len(pins) == 2 and all('"trust":"tofu"' in p for p in pins), pins
    for proc in procs:
        assert proc.stop() == 0, proc.output()


@pytest.mark.hosts(3)
def test_pinned_peer_with_another_key_is_refused(testbed, huddle, homes):
    """An impostor advertises the paired peer's name and device ID but holds another key: refused in TLS."""
    a, b, c = testbed[0], testbed[1], testbed[2]
    ada = chat(a, "Ada", homes("a"))
    bob = chat(b, "Bob", homes("b"))
    pair(ada, bob, "Ada", "Bob")
    bob_id = trusted(homes("a"))[0].split('"deviceID":"')[1].split('"')[0]
    bob.stop()
    ada.wait_line(lambda l: l == "* Bob is gone" or l == "* Bob left the chat", 10)
    # The impostor: its own identity listening on 7000, advertised under Bob's name and device ID.
    mallory = chat(c, "Mallory", homes("c"), "--port", "7000")
    mark = len(ada.lines)
    ad = huddle(c, "advertise", "Bob", "_typingtogether._tcp", "7000", f"id={bob_id}", "in=impostor1234567",
                "m=p", "v=1", "--json", "--host", "huddle-c2", "--interface", c.ifname)
    ad.wait_event(lambda e: e.get("event") == "registered", 15)
    ada.wait_line(lambda l: l.startswith("* Bob (") and l.endswith("is here"), 15, start=mark)
    ada.send("/connect Bob")  # Ada may have dialled already on finding it: either attempt must be refused
    line = ada.wait_line(lambda l: l.startswith("! could not connect to Bob"), 15, start=mark)
    assert "key changed" in line and bob_id[:7] in line, line
    assert not any("connected to" in l for _, l in ada.lines[mark:])
    ad.stop()
    for proc in (mallory, ada):
        assert proc.stop() == 0, proc.output()  # SIGTERM: a clean goodbye, no crash


def peers(host, name: str, home: str, *extra: str):
    """`huddle peers --json` in host with its own identity; stdin is a pipe."""
    env = dict(os.environ, HUDDLE_HOME=home)
    argv = [huddle_bin(), "peers", "--json", "--name", name, "--host", f"huddle-{host.letter}",
            "--interface", host.ifname, *extra]
    return host.spawn(*argv, label=f"{host.letter}:peers {name}", stdin=True, env=env)


@pytest.mark.hosts(2)
def test_server_and_client_modes_with_the_peer_picker(testbed, huddle, homes):
    """A client picks the server from the live list; both see one code, accept, and end connected."""
    a, b = testbed[0], testbed[1]
    server = peers(a, "Srv", homes("a"), "--mode", "server")
    client = peers(b, "Cli", homes("b"), "--mode", "client")
    found = client.wait_event(lambda e: e.get("event") == "found" and e.get("name") == "Srv", 15)
    time.sleep(0.2)
    assert not any(e.get("event") == "found" for e in server.events()), "a server does not browse"
    client.send("1")
    asked_client = client.wait_event(lambda e: e.get("event") == "request", 15)
    asked_server = server.wait_event(lambda e: e.get("event") == "request", 15)
    assert asked_client["code"] == asked_server["code"] and re.fullmatch(r"\d{3} \d{3}", asked_client["code"])
    assert asked_server["name"] == "Cli" and asked_client["name"] == "Srv"
    server.send("y")
    client.send("y")
    client.wait_event(lambda e: e == {**e, "event": "state", "peer": found["peer"], "state": "connected"}, 15)
    server.wait_event(lambda e: e.get("event") == "state" and e.get("state") == "connected", 15)
