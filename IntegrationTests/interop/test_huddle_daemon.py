"""Issue 38: `huddle daemon` on two test hosts, with nothing but the README's commands (no --host, no --interface,
no --yes; interfaces named eth0 as on a machine). Each user has their own HUDDLE_HOME and XDG_RUNTIME_DIR.

Ada's and Bob's daemons run; `huddle pair --no-qr` on Ada's host prints a link and `huddle pair -` on Bob's pairs
with it, both through their daemons; `huddle send F --to DaBob` lands in Bob's --dir without a question. With Bob's
daemon stopped, a send exits 0 saying it is queued; Ada's daemon is killed (SIGKILL) and started again, and the
file lands once Bob's daemon is back. A second daemon for one data directory refuses to start. A daemon set up by
its config.toml alone refuses a typo in it, then runs by it.
"""

from __future__ import annotations

import json
import os
import signal

import pytest

from huddle_cli import huddle_bin
from test_huddle_chat import code_of
from test_huddle_transfer import make_file, sha256
from testbed import wait_until


class User:
    """One person's huddle on one host: their data directory and runtime directory."""

    def __init__(self, host, homes, name: str):
        self.host, self.name = host, name
        self.home = homes(name)
        self.runtime = homes(name + "-run")
        os.chmod(self.runtime, 0o700)
        self.extra: dict[str, str] = {}  # more of the environment, e.g. DISPLAY

    def run(self, *args: str, stdin: bool = False):
        # Their own home too: a daemon without --dir receives into its XDG download folder.
        env = dict(os.environ, HOME=self.home, HUDDLE_HOME=self.home, XDG_RUNTIME_DIR=self.runtime, **self.extra)
        return self.host.spawn(huddle_bin(), *args, label=f"{self.host.letter}:{args[0]}", stdin=stdin, env=env)

    def daemon(self, *args: str):
        proc = self.run("daemon", "--name", self.name, *args)
        proc.wait_line(lambda l: l.startswith("huddle daemon:"), 20)
        return proc


def said(proc, text: str) -> bool:
    return any(text in line for _, line in proc.lines) or any(text in line for line in proc.err_lines)


def pair_by_link(issuing: User, using: User, using_daemon):
    """`huddle pair --no-qr` on one user's host prints a link; `huddle pair -` on the other's, given it on standard
    input, pairs (both through their daemons). Returns the two commands, both ended with 0."""
    issuer = issuing.run("pair", "--no-qr")
    link = issuer.wait_line(lambda l: l.startswith("huddle:pair"), 20)
    user = using.run("pair", "-", stdin=True)
    user.send(link)
    assert user.wait_exit(60) == 0, user.output() + using_daemon.output()
    assert issuer.wait_exit(30) == 0, issuer.output()
    return issuer, user


@pytest.mark.hosts(2, ifname="eth0")
def test_daemons_pair_deliver_without_a_question_and_queue_for_a_device_that_is_away(testbed, huddle, homes):
    ada, bob = User(testbed[0], homes, "DaAda"), User(testbed[1], homes, "DaBob")
    inbox = homes("inbox")
    ada_daemon = ada.daemon()
    bob_daemon = bob.daemon("--dir", inbox)

    second = bob.run("daemon", "--name", "DaBob", "--dir", inbox)
    assert second.wait_exit(20) == 1, second.output()
    assert any("a daemon already runs for this data directory (process " in l for l in second.err_lines), \
        second.output()

    issuer, user = pair_by_link(ada, bob, bob_daemon)
    assert said(user, "* paired with DaAda ("), user.output()
    assert said(issuer, "* paired with DaBob ("), issuer.output()

    first = os.path.join(homes("files"), "first.bin")
    first_digest = make_file(first, 3 << 20)
    send = ada.run("send", first, "--to", "DaBob")
    assert send.wait_exit(60) == 0, send.output() + ada_daemon.output()
    assert said(send, "sent first.bin to DaBob: verified by the receiver"), send.output()
    assert sha256(os.path.join(inbox, "first.bin")) == first_digest
    assert not said(bob_daemon, "question"), bob_daemon.output()

    # With --json through the daemon: its progress records as huddle send prints them, then the result.
    tracked = os.path.join(homes("files"), "tracked.bin")
    make_file(tracked, 2 << 20)
    send_json = ada.run("send", tracked, "--to", "DaBob", "--json")
    assert send_json.wait_exit(60) == 0, send_json.output() + ada_daemon.output()
    records = [json.loads(l) for _, l in send_json.lines]
    progress = [r for r in records if r["event"] == "progress"]
    assert progress and all(r["direction"] == "send" and r["total"] == 2 << 20 for r in progress), records
    assert progress[-1]["completed"] == 2 << 20, records
    assert [r["event"] for r in records if r["event"] != "progress"] == ["sent"], records

    listed = ada.run("peers")
    assert listed.wait_exit(20) == 0, listed.output()
    assert any(l.startswith("  1) DaBob (") and l.endswith(" — paired, here") for _, l in listed.lines), \
        listed.output()

    assert bob_daemon.stop() == 0, bob_daemon.output()

    def bob_away() -> bool:
        peers = ada.run("peers", "--json")
        assert peers.wait_exit(20) == 0, peers.output()
        records = [json.loads(l) for _, l in peers.lines]
        return [(r["name"], r["protocol"], r["trust"], r["here"]) for r in records] == [
            ("DaBob", "huddle", "paired", False)]
    wait_until(bob_away, 30, what="huddle peers saying DaBob is away")
    second_file = os.path.join(homes("files"), "later.bin")
    later_digest = make_file(second_file, 1 << 20)
    queued = ada.run("send", second_file, "--to", "DaBob")
    assert queued.wait_exit(60) == 0, queued.output() + ada_daemon.output()
    assert said(queued, "queued later.bin for DaBob"), queued.output()
    listing = ada.run("outbox")
    assert listing.wait_exit(20) == 0, listing.output()
    assert any("DaBob" in l and second_file in l for _, l in listing.lines), listing.output()
    # With --json the queued send is a record, and its id cancels it.
    extra = os.path.join(homes("files"), "extra.txt")
    with open(extra, "w") as f:
        f.write("cancelled\n")
    queued_json = ada.run("send", extra, "--to", "DaBob", "--json")
    assert queued_json.wait_exit(60) == 0, queued_json.output()
    records = [json.loads(l) for _, l in queued_json.lines]
    assert [(r["event"], r["file"], r["peer"]) for r in records] == [("queued", extra, "DaBob")], records
    cancel = ada.run("outbox", "--cancel", records[0]["id"])
    assert cancel.wait_exit(20) == 0 and said(cancel, f"cancelled {records[0]['id']}"), cancel.output()

    # Killed, nothing said: the queue is on disk, and the lock and the stale socket do not stop a new daemon.
    os.kill(ada_daemon.pid, signal.SIGKILL)
    ada_daemon.wait_exit(10)
    ada_daemon = ada.daemon()
    bob_daemon = bob.daemon("--dir", inbox)
    landed = os.path.join(inbox, "later.bin")
    try:
        wait_until(lambda: os.path.exists(landed), 90, what="the queued file in Bob's folder")
    except Exception as e:
        raise AssertionError(f"{e}\n{ada_daemon.output()}\n{bob_daemon.output()}") from e
    assert sha256(landed) == later_digest
    wait_until(lambda: said(ada_daemon, "outbox: delivered later.bin to DaBob"), 20, what="the delivery logged")
    empty = ada.run("outbox")
    assert empty.wait_exit(20) == 0, empty.output()
    assert [l for _, l in empty.lines] == ["The outbox is empty."], empty.output()
    assert not [n for n in os.listdir(inbox) if n.startswith(".")], os.listdir(inbox)
    # No --to: the daemon knows one device, so that is where it goes (--json: records only on standard output).
    third = os.path.join(homes("files"), "third.txt")
    with open(third, "w") as f:
        f.write("no --to\n")
    picked = ada.run("send", third, "--json")
    assert picked.wait_exit(60) == 0, picked.output() + ada_daemon.output()
    sent = [json.loads(l) for _, l in picked.lines]
    assert [(r["event"], r["file"]) for r in sent if r["event"] != "progress"] == [("sent", "third.txt")], sent
    with open(os.path.join(inbox, "third.txt")) as f:
        assert f.read() == "no --to\n"
    assert not os.path.exists(os.path.join(inbox, "extra.txt"))

    # trust needs no daemon: the store is shared by file lock, and the daemon's session sees the change.
    trusted = ada.run("trust", "list", "--json")
    assert trusted.wait_exit(20) == 0, trusted.output()
    bob_id = next(r["deviceID"] for r in map(json.loads, (l for _, l in trusted.lines)) if r["name"] == "DaBob")
    forget = ada.run("trust", "forget", bob_id[:7])
    assert forget.wait_exit(20) == 0 and said(forget, f"forgot {bob_id[:7]}"), forget.output()

    def bob_not_paired() -> bool:
        peers = ada.run("peers", "--json")
        assert peers.wait_exit(20) == 0, peers.output()
        return [(r["name"], r["trust"]) for r in map(json.loads, (l for _, l in peers.lines))] == [
            ("DaBob", "not paired")]
    wait_until(bob_not_paired, 20, what="the daemon seeing DaBob forgotten")
    for proc in (ada_daemon, bob_daemon):
        assert proc.stop() == 0, proc.output()


REFUSED_PROBE = """
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except PermissionError:
    print("permission denied"); sys.exit(0)
data = b""
try:
    s.sendall(json.dumps({"version": 1, "command": "outbox"}).encode() + b"\\n")
    s.settimeout(10)
    while chunk := s.recv(4096):
        data += chunk
except (ConnectionResetError, BrokenPipeError):
    pass  # closed with our request unread: a reset, not an answer
print("answered" if data else "closed unanswered")
"""


@pytest.mark.hosts(2, ifname="eth0")
def test_a_stranger_waits_for_huddle_answer_and_other_users_get_no_answer(testbed, huddle, homes):
    """Cy, not paired, sends to Bob's daemon: the connection waits for `huddle answer` on Bob's host, which shows
    the code Cy shows; answered yes, the file lands. Another user of Bob's host reaches no daemon: the socket's
    folder keeps them out, and with the folder opened the daemon itself closes on them (SO_PEERCRED)."""
    bob, cy = User(testbed[1], homes, "DaBob"), User(testbed[0], homes, "Cy")
    inbox = homes("inbox")
    # Bob's settings are in his config.toml, not on the command line; a typo in it is refused by name first.
    config = os.path.join(bob.home, ".config", "huddle", "config.toml")
    os.makedirs(os.path.dirname(config))
    with open(config, "w") as f:
        f.write(f'name = "DaBob"\ndir = "{inbox}"\n[accept]\nothers = "ask"\nacept = "accept"\n')
    typo = bob.run("daemon")
    assert typo.wait_exit(20) == 78, typo.output()
    assert typo.err_lines == [f"huddle: {config}: unknown setting accept.acept (docs/daemon.md lists them)"], \
        typo.output()
    with open(config, "w") as f:
        f.write(f'name = "DaBob"\ndir = "{inbox}"\n[accept]\nothers = "ask"\n')
    bob_daemon = bob.run("daemon")
    ready = bob_daemon.wait_line(lambda l: l.startswith("huddle daemon:"), 20)
    assert ready.startswith("huddle daemon: DaBob") and f"receiving into {inbox} (settings: {config})" in ready, ready
    source = os.path.join(homes("files"), "hello.txt")
    with open(source, "w") as f:
        f.write("from a stranger\n")
    send = cy.run("send", source, "--to", "DaBob", stdin=True)
    code = code_of(send, 30)
    bob_daemon.wait_line(lambda l: l.startswith("question 1 waits"), 20)
    listing = bob.run("answer")
    assert listing.wait_exit(20) == 0, listing.output()
    assert any(l.startswith("1: ? pair with ") and f"Code: {code} " in l for _, l in listing.lines), listing.output()
    send.send("y")
    answer = bob.run("answer", "1", "yes")
    assert answer.wait_exit(20) == 0, answer.output()
    assert [l for _, l in answer.lines] == ["answered 1: yes"], answer.output()
    assert send.wait_exit(60) == 0, send.output() + bob_daemon.output()
    with open(os.path.join(inbox, "hello.txt")) as f:
        assert f.read() == "from a stranger\n"
    again = bob.run("answer", "1", "no")
    assert again.wait_exit(20) == 64, again.output()

    socket_path = next(os.path.join(bob.runtime, "huddle", n) for n in os.listdir(os.path.join(bob.runtime, "huddle")))
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "python3", "-c", REFUSED_PROBE,
              socket_path]
    assert testbed[1].run(*nobody).stdout.strip() == "permission denied"
    # Bob's own commands (each first looks whether a daemon runs) are no other user: nothing warned so far.
    assert not any("refused a connection" in l for l in bob_daemon.err_lines), bob_daemon.output()
    os.chmod(os.path.dirname(bob.runtime), 0o711)  # the test's own scratch root
    os.chmod(bob.runtime, 0o711)
    os.chmod(os.path.dirname(socket_path), 0o711)
    os.chmod(socket_path, 0o666)
    assert testbed[1].run(*nobody).stdout.strip() == "closed unanswered"
    wait_until(lambda: any("refused a connection from another user (user ID 65534)" in l
                           for l in bob_daemon.err_lines), 10,
               what="the daemon's warning")
    assert bob_daemon.stop() == 0, bob_daemon.output()


@pytest.mark.hosts(1, ifname="eth0")
def test_the_installed_unit_is_valid_and_runs_the_daemon_by_its_config(testbed, huddle, homes):
    """`huddle daemon --install-unit` writes ~/.config/systemd/user/huddle.service; systemd-analyze finds nothing
    wrong with it, and its ExecStart, run as systemd would (no options, a fresh environment but HOME and the
    runtime folder), starts a daemon that takes its name and folder from config.toml."""
    import shlex
    import shutil
    import subprocess

    from conftest import skip_or_fail

    if not shutil.which("systemd-analyze"):
        skip_or_fail("systemd-analyze is missing (apt-get install systemd)")
    ada = User(testbed[0], homes, "DaUnit")
    install = ada.run("daemon", "--install-unit")
    assert install.wait_exit(20) == 0, install.output()
    unit = os.path.join(ada.home, ".config", "systemd", "user", "huddle.service")
    assert [l for _, l in install.lines][0] == f"wrote {unit}; start it now and at every login with:", install.output()
    with open(unit) as f:
        text = f.read()
    assert f"ExecStart={os.path.realpath(huddle_bin())} daemon\n" in text and "WantedBy=default.target" in text, text
    verify = subprocess.run(["systemd-analyze", "verify", "--man=no", unit], capture_output=True, text=True)
    assert verify.returncode == 0 and not verify.stderr.strip(), verify.stderr
    refused = ada.run("daemon", "--install-unit", "--name", "Other")
    assert refused.wait_exit(20) == 64, refused.output()

    inbox = homes("unit-inbox")
    config = os.path.join(ada.home, ".config", "huddle", "config.toml")
    os.makedirs(os.path.dirname(config))
    with open(config, "w") as f:
        f.write(f'name = "DaUnit"\ndir = "{inbox}"\n')
    exec_start = next(l for l in text.splitlines() if l.startswith("ExecStart="))[len("ExecStart="):]
    env = {"HOME": ada.home, "XDG_RUNTIME_DIR": ada.runtime, "PATH": "/usr/bin:/bin"}
    daemon = testbed[0].spawn(*shlex.split(exec_start), label="a:unit", env=env)
    ready = daemon.wait_line(lambda l: l.startswith("huddle daemon:"), 20)
    assert ready.startswith("huddle daemon: DaUnit") and f"receiving into {inbox} (settings: {config})" in ready, ready
    assert daemon.stop() == 0, daemon.output()


@pytest.mark.hosts(2, ifname="eth0", default_route=True)
def test_a_send_through_the_daemon_reaches_a_localsend_device_and_peers_lists_it(testbed, localsendd, homes):
    """localsendd (an independent LocalSend implementation) on Bob's host; Ada's daemon finds it by LocalSend's
    multicast. `huddle peers` through the daemon lists it with its protocol and fingerprint, and `huddle send F
    --to ld-b` through the daemon delivers the file byte for byte."""
    ada = User(testbed[0], homes, "DaAda")
    peer = localsendd(testbed[1], "ld-b")
    daemon = ada.daemon()

    def listed() -> dict | None:
        peers = ada.run("peers", "--json")
        assert peers.wait_exit(20) == 0, peers.output()
        return next((r for r in map(json.loads, (l for _, l in peers.lines)) if r["name"] == "ld-b"), None)
    wait_until(listed, 30, what="ld-b in huddle peers through the daemon")
    record = listed()
    assert record["protocol"] == "localsend" and record["sendName"] == "localsend:ld-b" and record["here"], record
    assert peer.fingerprint.upper().startswith(record["id"].upper()), record

    path = os.path.join(homes("files"), "photo.jpg")
    digest = make_file(path, 200_000)
    send = ada.run("send", path, "--to", "ld-b")
    assert send.wait_exit(60) == 0, send.output() + daemon.output()
    assert said(send, f"sent photo.jpg to ld-b (LocalSend, fingerprint {peer.fingerprint[:8]}"), send.output()
    assert sha256(peer.wait_file("photo.jpg", timeout=10, size=200_000)) == digest
    assert daemon.stop() == 0, daemon.output()


@pytest.mark.full  # the `localsend` package is installed by the full run only (it needs Python 3.12)
@pytest.mark.hosts(2, ifname="eth0", default_route=True)
def test_a_text_through_the_daemon_reaches_a_localsend_device(testbed, localsend_second, homes):
    """`huddle send --text T --to ls-b` with a daemon running goes through it: the `localsend` package on Bob's
    host gets one text/plain offer whose preview and bytes are the text, from the daemon's name."""
    import hashlib

    ada = User(testbed[0], homes, "DaAda")
    second = localsend_second(testbed[1], "ls-b")
    daemon = ada.daemon()
    text = "héllo through the daemon\n✓"
    said_it = ada.run("send", "--text", text, "--to", "ls-b", "--wait", "20")
    assert said_it.wait_exit(60) == 0, said_it.output() + daemon.output()
    assert said(said_it, "sent the text to ls-b (LocalSend, fingerprint "), said_it.output()
    offer = second.wait_offer(lambda e: e["fileType"] == "text/plain", timeout=10)
    assert (offer["preview"], offer["from"]) == (text, "DaAda"), offer
    assert offer["sha256"] == hashlib.sha256(text.encode()).hexdigest(), offer
    assert daemon.stop() == 0, daemon.output()


@pytest.mark.hosts(2, ifname="eth0")
def test_two_daemons_on_their_defaults_on_hosts_of_one_host_name_pair_and_send(testbed, huddle, homes):
    """What a new user does on two machines both called, say, `raspberrypi`: `huddle daemon` with no option on
    each (both take the host name as their name), `huddle pair --no-qr` on one and `huddle pair -` on the other,
    then `huddle send F` with no --to: the only device the daemon knows is the other one, though it has this
    device's own name, and the file lands in the other's download folder without a question."""
    a, b = testbed[0], testbed[1]
    assert a.run("hostname").stdout == b.run("hostname").stdout, "the hosts share one UTS host name"
    ada, bob = User(a, homes, "same-a"), User(b, homes, "same-b")
    daemons = []
    for user in (ada, bob):
        proc = user.run("daemon")
        proc.wait_line(lambda l: l.startswith("huddle daemon:"), 20)
        daemons.append(proc)
    pair_by_link(ada, bob, daemons[1])

    listed = ada.run("peers", "--json")
    assert listed.wait_exit(20) == 0, listed.output()
    records = [json.loads(l) for _, l in listed.lines]
    assert [(r["protocol"], r["trust"], r["here"]) for r in records] == [("huddle", "paired", True)], records
    path = os.path.join(homes("files"), "same.bin")
    digest = make_file(path, 1 << 20)
    send = ada.run("send", path)
    assert send.wait_exit(60) == 0, send.output() + daemons[0].output()
    assert said(send, "sent same.bin to ") and said(send, ": verified by the receiver"), send.output()
    landed = os.path.join(bob.home, "Downloads", "same.bin")
    assert sha256(landed) == digest, os.listdir(bob.home)
    assert not said(daemons[1], "question"), daemons[1].output()
    assert not any("refused" in l for d in daemons for l in d.err_lines), daemons[0].output()
    for proc in daemons:
        assert proc.stop() == 0, proc.output()
