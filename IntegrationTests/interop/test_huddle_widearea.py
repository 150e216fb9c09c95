"""Issue 20: wide-area DNS-SD (RFC 6763 §11) against a real BIND 9 across a router.

Subnet 1: Ada (a); subnet 2: Bob (b); subnet 3: named (c), serving example.internal and taking updates signed
with its TSIG key. Multicast does not cross the router: only the domain brings Ada and Bob together.
"""

from __future__ import annotations

import os
import signal

import pytest

from huddle_cli import huddle_bin
from test_huddle_chat import pair

THREE = dict(subnets={"b": 2, "c": 3}, router=True)
SERVICE = "_typingtogether._tcp"


def chat(host, home: str, name: str, dns, *extra: str, key: str | None = "right"):
    """`huddle chat` in host with the domain of `dns` (a BindServer) and its right, wrong or no key."""
    env = dict(os.environ, HUDDLE_HOME=home)
    wide = ["--domain", dns.zone, "--dns-server", dns.address]
    if key:
        wide += ["--tsig-key", dns.key_file if key == "right" else dns.wrong_key_file]
    argv = [huddle_bin(), "chat", "--name", name, "--host", f"huddle-{host.letter}", "--interface", host.ifname,
            *wide, *extra]
    proc = host.spawn(*argv, label=f"{host.letter}:chat {name}", stdin=True, env=env)
    proc.wait_line(lambda l: l.startswith("Chatting in"), 15)
    return proc


def instances(dns) -> list[str]:
    """The instance names the service's PTR records list, by AXFR."""
    return sorted(r["rdata"] for r in dns.records() if r["type"] == "PTR" and r["name"].startswith(SERVICE))


def wait_for(predicate, what: str, timeout: float = 10):
    """Polls predicate (a zone read) until it holds; bounded."""
    from testbed import wait_until
    return wait_until(predicate, timeout=timeout, interval=0.2, what=what)


@pytest.mark.hosts(3, **THREE)
def test_two_subnets_meet_through_the_domain_and_the_registration_leaves_with_the_session(
        testbed, huddle, homes, bind9):
    a, b, c = testbed[0], testbed[1], testbed[2]
    dns = bind9(c)
    ada = chat(a, homes("a"), "Ada", dns)
    wait_for(lambda: any(i.startswith("Ada\\032\\(") for i in instances(dns)), "Ada's registration")
    srv = [r for r in dns.records() if r["type"] == "SRV"]
    assert len(srv) == 1 and srv[0]["rdata"].split()[2] == "47474", srv
    assert dns.query(srv[0]["rdata"].split()[3], "A") == [a.ipv4]
    bob = chat(b, homes("b"), "Bob", dns)
    bob.wait_line(lambda l: l.startswith("* Ada (")
                  and l.endswith(f"is here (dialled at {a.ipv4}:47474, not found nearby)"), 20)
    pair(bob, ada, "Bob", "Ada")
    bob.send("found through the domain")
    ada.wait_line(lambda l: l == "Bob: found through the domain", 5)
    ada.send("/quit")
    assert ada.wait_exit(10) == 0, ada.output()
    wait_for(lambda: not any(i.startswith("Ada\\032\\(") for i in instances(dns)), "Ada's records removed")
    assert not [r for r in dns.records() if r["name"].startswith("huddle-") and r["type"] == "A"
                and r["rdata"] == a.ipv4]


@pytest.mark.hosts(3, **THREE)
def test_a_wrong_tsig_key_is_refused_by_the_server_and_said(testbed, huddle, homes, bind9):
    a, c = testbed[0], testbed[2]
    dns = bind9(c)
    before = dns.records()
    ada = chat(a, homes("a"), "Ada", dns, key="wrong")
    said = ada.wait_line(lambda l: l.startswith("! session: wide-area DNS-SD: registering in"), 15)
    assert "BADSIG" in said and "the key's secret is not the server's" in said, said
    assert dns.records() == before


@pytest.mark.hosts(3, **THREE)
def test_a_killed_session_leaves_records_that_its_next_start_takes_out(testbed, huddle, homes, bind9):
    """BIND 9 keeps a killed process's records (no leases). The device's next session, under another name,
    deletes them before it registers; meanwhile a browser shows the stale address as unreachable, once."""
    a, b, c = testbed[0], testbed[1], testbed[2]
    dns = bind9(c)
    ada = chat(a, homes("a"), "Ada", dns)
    wait_for(lambda: any(i.startswith("Ada\\032\\(") for i in instances(dns)), "Ada's registration")
    ada.proc.send_signal(signal.SIGKILL)
    ada.wait_exit(5)
    assert any(i.startswith("Ada\\032\\(") for i in instances(dns)), "the killed session's records stay"
    bob = chat(b, homes("b"), "Bob", dns)
    told = bob.wait_line(lambda l: l.startswith(f"! {a.ipv4}:47474: "), 20)
    assert "connection refused" in told and told.endswith("trying again"), told
    chat(a, homes("a"), "Ada2", dns)
    wait_for(lambda: [i.split("\\032\\(")[0] for i in instances(dns) if i.startswith("Ada")] == ["Ada2"],
             "only the new registration of Ada's device")
    # Ada2 finds Bob in the domain and dials him: they meet (a first contact, as the device never paired).
    bob.wait_line(lambda l: l.startswith("? pair with Ada2 ("), 20)
    assert len([l for _, l in bob.lines if l.startswith(f"! {a.ipv4}:47474: ")]) == 1, bob.output()


@pytest.mark.hosts(3, **THREE)
def test_send_finds_the_receiver_through_the_domain(testbed, huddle, homes, bind9):
    """`huddle receive` registers in the domain; `huddle send --domain` on the other subnet finds it there."""
    a, b, c = testbed[0], testbed[1], testbed[2]
    dns = bind9(c)
    wide = ["--domain", dns.zone, "--dns-server", dns.address, "--tsig-key", dns.key_file]
    source = os.path.join(homes("files"), "report.bin")
    data = os.urandom(1 << 20)
    with open(source, "wb") as f:
        f.write(data)
    inbox = homes("inbox")
    receiver = b.spawn(huddle_bin(), "receive", "--dir", inbox, "--yes", "--count", "1", "--name", "Bob",
                       "--host", "huddle-b", "--interface", b.ifname, *wide, label="b:receive",
                       env=dict(os.environ, HUDDLE_HOME=homes("b")))
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    wait_for(lambda: any(i.startswith("Bob\\032\\(") for i in instances(dns)), "Bob's registration")
    sender = a.spawn(huddle_bin(), "send", source, "--to", "Bob", "--yes", "--name", "Ada", "--host", "huddle-a",
                     "--interface", a.ifname, *wide, label="a:send", env=dict(os.environ, HUDDLE_HOME=homes("a")))
    sender.wait_line(lambda l: l == "sent report.bin: verified by the receiver", 60)
    assert sender.wait_exit(20) == 0, sender.output()
    receiver.wait_line(lambda l: l.startswith("received "), 10)
    with open(os.path.join(inbox, "report.bin"), "rb") as f:
        assert f.read() == data
