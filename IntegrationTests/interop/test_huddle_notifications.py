"""The daemon's questions as desktop notifications (docs/notifications.md), against a real notification server.

On Ada's test host: a private Xvfb, a private session bus (dbus-daemon with a config of our own) and dunst on it,
with a `dmenu` script that picks the action the test wants from dunst's context menu and a rule script that logs
every notification of app Huddle as dunst takes it. `huddle daemon --name DaAda` runs there with
DBUS_SESSION_BUS_ADDRESS set to that bus. Cy, an unpaired device on the other host, sends a file: the question
shows in dunst with its words and both actions; Accept chosen through dunst lands the file byte for byte and the
notification is closed by the daemon (into dunst's history). A second stranger's send, declined through dunst, is
refused: the send fails and no file lands. A third's, dismissed in dunst, still waits for `huddle answer`; the
daemon stopping closes what it still shows. Without a bus (and with a bus but no notification server) the daemon logs one
line and `huddle answer` still answers.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
from xml.sax.saxutils import escape

import pytest

from conftest import skip_or_fail
from test_huddle_chat import CODE
from test_huddle_daemon import User, said
from test_huddle_transfer import make_file, sha256
from testbed import TestbedError, wait_until

TOOLS = ("dbus-daemon", "dunst", "dunstctl", "Xvfb")
_DISPLAYS = itertools.count()

_BUS_CONF = """<busconfig>
  <type>session</type>
  <listen>unix:path={path}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""

# dunst's context menu: one line per action, "#<label> (<summary>) [<id>,<key>]"; print the wanted one.
_MENU = """#!/bin/sh
cat > {dir}/menu.tmp
grep -m1 "^#$(cat {dir}/want) (" {dir}/menu.tmp
mv {dir}/menu.tmp {dir}/menu.in
"""

# Run by dunst for every notification of app Huddle it takes: one JSON line of what it shows.
_SHOWN = """#!{python}
import json, os
with open({log!r}, "a") as f:
    f.write(json.dumps({{k: os.environ.get("DUNST_" + k.upper(), "") for k in ("id", "app_name", "summary", "body")}})
            + "\\n")
"""

_DUNSTRC = """[global]
dmenu = {dir}/menu.sh
[huddle]
appname = Huddle
script = {dir}/shown.py
"""


@pytest.fixture
def tools():
    missing = [t for t in TOOLS if not shutil.which(t)]
    if missing:
        skip_or_fail(f"missing {', '.join(missing)}: scripts/test installs them as root "
                     "(apt-get install dbus dunst xvfb)")


class Desktop:
    """Xvfb, a private session bus and dunst in one test host."""

    def __init__(self, host, root: str, server: bool = True):
        import sys

        self.host, self.dir = host, root
        os.makedirs(root, exist_ok=True)
        self.socket = os.path.join(root, "bus")
        self.address = f"unix:path={self.socket}"
        self.shown_log = os.path.join(root, "shown.log")
        with open(os.path.join(root, "bus.conf"), "w") as f:
            f.write(_BUS_CONF.format(path=escape(self.socket)))
        for name, text in (("menu.sh", _MENU.format(dir=root)),
                           ("shown.py", _SHOWN.format(python=sys.executable, log=self.shown_log))):
            with open(os.path.join(root, name), "w") as f:
                f.write(text)
            os.chmod(os.path.join(root, name), 0o755)
        with open(os.path.join(root, "dunstrc"), "w") as f:
            f.write(_DUNSTRC.format(dir=root))
        self.bus = host.spawn("dbus-daemon", "--nofork", "--print-address", "--config-file",
                              os.path.join(root, "bus.conf"), label=f"{host.letter}:bus")
        self.bus.wait_line(lambda l: l.startswith("unix:"), 15)
        self.dunst = None
        if server:
            self.display = self._xvfb()
            self.dunst = host.spawn(*self._env(), "dunst", "-config", os.path.join(root, "dunstrc"),
                                    label=f"{host.letter}:dunst", merge_stderr=True)
            wait_until(lambda: self.ctl("count", "displayed", check=False) == "0", 15,
                       what="dunst answering on the private bus")

    def _xvfb(self) -> str:
        """A display of this host alone: Xvfb on the abstract socket of the host's network namespace."""
        last = ""
        for _ in range(8):
            n = 3000 + (os.getpid() % 1000) * 8 + next(_DISPLAYS) % 8
            proc = self.host.spawn("Xvfb", f":{n}", "-displayfd", "1", "-nolisten", "tcp", "-nolisten", "unix",
                                   "-noreset", "-screen", "0", "320x240x24", label=f"{self.host.letter}:Xvfb")
            try:
                proc.wait_line(lambda line: line.strip() == str(n), 10)
                return f":{n}"
            except TestbedError as e:
                last = str(e)
                proc.stop(timeout=3)
        raise TestbedError(f"no Xvfb display: {last}")

    def _env(self) -> list[str]:
        return ["env", f"DBUS_SESSION_BUS_ADDRESS={self.address}", f"DISPLAY={self.display}",
                f"HOME={self.dir}", f"XDG_RUNTIME_DIR={self.dir}"]

    def ctl(self, *args: str, check: bool = True) -> str:
        cp = self.host.run("env", f"DBUS_SESSION_BUS_ADDRESS={self.address}", "dunstctl", *args, check=check)
        return cp.stdout.strip()

    def shown(self) -> list[dict]:
        """What dunst took from app Huddle so far, in order."""
        if not os.path.exists(self.shown_log):
            return []
        with open(self.shown_log) as f:
            return [json.loads(l) for l in f if l.strip()]

    def choose(self, label: str) -> list[str]:
        """Picks the action `label` in dunst's context menu (as a person would); returns the menu's lines."""
        menu = os.path.join(self.dir, "menu.in")
        if os.path.exists(menu):
            os.remove(menu)
        with open(os.path.join(self.dir, "want"), "w") as f:
            f.write(label)
        self.ctl("context")
        wait_until(lambda: os.path.exists(menu), 15, what="dunst's context menu")
        with open(menu) as f:
            return f.read().splitlines()

    def history(self) -> list[dict]:
        """dunstctl history as plain {field: value} records."""
        data = json.loads(self.ctl("history"))["data"][0]
        return [{k: v["data"] for k, v in record.items()} for record in data]


class Person(User):
    """A User whose programs see `bus` as their session bus (None: no DBUS_SESSION_BUS_ADDRESS at all)."""

    def __init__(self, host, homes, name: str, bus: str | None):
        super().__init__(host, homes, name)
        self.bus = bus

    def run(self, *args: str, stdin: bool = False):
        from huddle_cli import huddle_bin

        env = dict(os.environ, HOME=self.home, HUDDLE_HOME=self.home, XDG_RUNTIME_DIR=self.runtime)
        env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        if self.bus:
            env["DBUS_SESSION_BUS_ADDRESS"] = self.bus
        return self.host.spawn(huddle_bin(), *args, label=f"{self.host.letter}:{args[0]}", stdin=stdin, env=env)


def start_send(sender, path: str, ada, daemon, question: int):
    """A send to Ada's daemon, up to its question `question` waiting; a connection request's code is confirmed on
    the sender's side too (as a person would). Returns the send and the code (None when no connection was asked)."""
    send = sender.run("send", path, "--to", ada.name, "--name", sender.name, stdin=True)
    confirm_code(send, ada, daemon, question)
    code = next((CODE.search(l).group(1) for _, l in send.lines if l.startswith("? pair with ")), None)
    return send, code


def confirm_code(send, ada, daemon, question: int) -> bool:
    """Waits for the daemon's question `question` (False when the send ended first); when it is a connection
    request, the sender confirms the same code."""
    waits = f"question {question} waits"
    wait_until(lambda: said(daemon, waits) or send.proc.poll() is not None, 60, what=waits)
    if not said(daemon, waits):
        return False
    listing = ada.run("answer")
    assert listing.wait_exit(20) == 0, listing.output()
    asked = next((l for _, l in listing.lines if l.startswith(f"{question}: ")), "")
    if asked.startswith(f"{question}: ? pair with "):
        line = send.wait_line(lambda l: l.startswith("? pair with "), 20)
        assert CODE.search(line).group(1) in asked, (line, asked)
        send.send("y")
    return True


def notification_log(daemon) -> list[str]:
    return [l for _, l in daemon.lines if l.startswith("desktop notifications:")]


@pytest.mark.hosts(2, ifname="eth0")
def test_a_question_is_answered_through_dunst(testbed, huddle, homes, tools):
    desktop = Desktop(testbed[0], os.path.join(testbed.tmpdir, "desktop-a"))
    ada = Person(testbed[0], homes, "DaAda", desktop.address)
    cy = Person(testbed[1], homes, "Cy", None)
    inbox = homes("inbox")
    daemon = ada.daemon("--dir", inbox)

    source = os.path.join(homes("files"), "photo.jpg")
    digest = make_file(source, 300_000)
    send, code = start_send(cy, source, ada, daemon, 1)
    wait_until(lambda: desktop.shown(), 20, what="the question in dunst")
    first = desktop.shown()[0]
    assert (first["app_name"], first["summary"]) == ("Huddle", "Huddle: Cy wants to connect"), first
    assert first["body"].startswith("? pair with Cy (") and f"Code: {code} " in first["body"], (code, first)
    assert desktop.ctl("count", "displayed") == "1"
    assert not notification_log(daemon), daemon.output()

    # Accept through dunst, for every question this send puts (the connection, maybe the file after it).
    menu = desktop.choose("Accept")
    assert any(l.startswith("#Accept (Huddle: Cy ") for l in menu), menu
    assert any(l.startswith("#Decline (Huddle: Cy ") for l in menu), menu
    for question in itertools.count(2):
        if not confirm_code(send, ada, daemon, question):
            break
        wait_until(lambda: len(desktop.shown()) >= question, 20, what=f"question {question} in dunst")
        desktop.choose("Accept")
    assert send.wait_exit(30) == 0, send.output() + daemon.output()
    assert sha256(os.path.join(inbox, "photo.jpg")) == digest
    # Settled, each notification is closed by the daemon: nothing displayed, the words in dunst's history.
    wait_until(lambda: desktop.ctl("count", "displayed") == "0", 20, what="the notification closed")
    history = desktop.history()
    assert any(r["summary"] == first["summary"] and r["body"] == first["body"] for r in history), history
    answered = ada.run("answer")
    assert answered.wait_exit(20) == 0, answered.output()
    assert not [l for _, l in answered.lines if re.match(r"\d+: ", l)], answered.output()

    # Cy's code was compared: Cy is paired now, and sends without a question. Another stranger's send, declined
    # through dunst, is refused and nothing lands.
    dee = Person(testbed[1], homes, "Dee", None)
    shown_before = len(desktop.shown())
    other = os.path.join(homes("files"), "other.bin")
    make_file(other, 10_000)
    asked = len([l for _, l in daemon.lines if " waits: huddle answer " in l])
    send, _ = start_send(dee, other, ada, daemon, asked + 1)
    assert said(daemon, f"question {asked + 1} waits"), send.output() + daemon.output()
    wait_until(lambda: len(desktop.shown()) > shown_before, 20, what="the second question in dunst")
    assert desktop.shown()[-1]["summary"] == "Huddle: Dee wants to connect", desktop.shown()
    desktop.choose("Decline")
    rc = send.wait_exit(60)
    assert rc not in (None, 0), send.output() + daemon.output()
    assert send.err_lines == ["huddle: could not connect to DaAda: the connection was refused (denied)"], send.output()
    assert not os.path.exists(os.path.join(inbox, "other.bin")), os.listdir(inbox)
    wait_until(lambda: desktop.ctl("count", "displayed") == "0", 20, what="the declined notification closed")
    assert not notification_log(daemon), daemon.output()

    # Dismissed in dunst (no action): the question keeps waiting, and huddle answer answers it.
    eve = Person(testbed[1], homes, "Eve", None)
    third = os.path.join(homes("files"), "third.txt")
    with open(third, "w") as f:
        f.write("dismissed, then answered\n")
    question = len([l for _, l in daemon.lines if " waits: huddle answer " in l]) + 1
    send, _ = start_send(eve, third, ada, daemon, question)
    wait_until(lambda: desktop.shown() and desktop.shown()[-1]["summary"] == "Huddle: Eve wants to connect", 20,
               what="Eve's question in dunst")
    desktop.ctl("close")
    assert desktop.ctl("count", "displayed") == "0"
    listing = ada.run("answer")
    assert listing.wait_exit(20) == 0, listing.output()
    assert any(l.startswith(f"{question}: ? pair with Eve (") for _, l in listing.lines), listing.output()
    answer = ada.run("answer", str(question), "yes")
    assert answer.wait_exit(20) == 0 and [l for _, l in answer.lines] == [f"answered {question}: yes"], \
        answer.output()
    assert send.wait_exit(60) == 0, send.output() + daemon.output()
    with open(os.path.join(inbox, "third.txt")) as f:
        assert f.read() == "dismissed, then answered\n"

    # The daemon stopping declines what waits, and closes its notification: nothing is left displayed.
    fay = Person(testbed[1], homes, "Fay", None)
    send, _ = start_send(fay, third, ada, daemon, question + 1)
    wait_until(lambda: desktop.ctl("count", "displayed") == "1", 20, what="Fay's question in dunst")
    assert daemon.stop() == 0, daemon.output()
    assert desktop.ctl("count", "displayed") == "0"
    assert send.wait_exit(60) not in (None, 0), send.output()


@pytest.mark.hosts(2, ifname="eth0")
def test_without_a_bus_or_a_server_the_daemon_says_so_once_and_huddle_answer_answers(testbed, huddle, homes, tools):
    cy = Person(testbed[1], homes, "Cy", None)
    for case in ("no bus", "no server"):
        desktop = Desktop(testbed[0], os.path.join(testbed.tmpdir, "bus-only"), server=False) if case == "no server" else None
        ada = Person(testbed[0], homes, "DaAda" + case[3], desktop.address if desktop else None)
        inbox = homes("inbox-" + case[3])
        daemon = ada.daemon("--dir", inbox)
        if desktop is None:
            wait_until(lambda: notification_log(daemon), 10, what="the daemon's line about notifications")
            assert notification_log(daemon) == [
                "desktop notifications: none (DBUS_SESSION_BUS_ADDRESS is not set); answer with huddle answer"]
        source = os.path.join(homes("files"), f"note-{case[3]}.txt")
        with open(source, "w") as f:
            f.write(f"{case}\n")
        send = cy.run("send", source, "--to", ada.name, "--name", cy.name, stdin=True)
        for question in itertools.count(1):
            if not confirm_code(send, ada, daemon, question):
                break
            answer = ada.run("answer", str(question), "yes")
            assert answer.wait_exit(20) == 0, answer.output()
            assert [l for _, l in answer.lines] == [f"answered {question}: yes"], answer.output()
        assert send.wait_exit(30) == 0, send.output() + daemon.output()
        with open(os.path.join(inbox, os.path.basename(source))) as f:
            assert f.read() == f"{case}\n"
        lines = notification_log(daemon)
        if desktop is not None:
            assert len(lines) == 1 and lines[0].startswith("desktop notifications: question 1 not shown ("), lines
            assert "org.freedesktop.DBus.Error.ServiceUnknown" in lines[0], lines
        else:
            assert len(lines) == 1, lines
        assert daemon.stop() == 0, daemon.output()


@pytest.mark.hosts(2, ifname="eth0")
def test_a_bus_that_comes_up_after_the_daemon_is_used_and_notifications_false_keeps_it_quiet(
        testbed, huddle, homes, tools):
    """The daemon starts before its session bus (as a user service may): it says so once and tries again, so a
    question after the bus and dunst came up is shown there. With `notifications = false` in config.toml, nothing
    is shown and nothing said; `huddle answer` answers."""
    root = os.path.join(testbed.tmpdir, "late-desktop")
    ada = Person(testbed[0], homes, "DaAda", f"unix:path={os.path.join(root, 'bus')}")
    cy = Person(testbed[1], homes, "Cy", None)
    inbox = homes("inbox")
    daemon = ada.daemon("--dir", inbox)
    try:
        wait_until(lambda: notification_log(daemon), 10, what="the daemon's line about notifications")
    except TestbedError:
        raise AssertionError(daemon.output())
    first = notification_log(daemon)
    assert len(first) == 1 and first[0].startswith("desktop notifications: none ("), first
    assert first[0].endswith("answer with huddle answer (trying again every 10 s)"), first

    desktop = Desktop(testbed[0], root)
    try:
        wait_until(lambda: len(notification_log(daemon)) == 2, 30, what="the daemon connecting to the new bus")
    except TestbedError:
        raise AssertionError(daemon.output())
    assert notification_log(daemon)[1] == "desktop notifications: connected to the session bus again", \
        notification_log(daemon)
    source = os.path.join(homes("files"), "late.txt")
    with open(source, "w") as f:
        f.write("shown late\n")
    send, code = start_send(cy, source, ada, daemon, 1)
    wait_until(lambda: desktop.shown(), 20, what="the question in dunst")
    assert desktop.shown()[0]["summary"] == "Huddle: Cy wants to connect", desktop.shown()
    for question in itertools.count(1):
        if question > 1 and not confirm_code(send, ada, daemon, question):
            break
        answer = ada.run("answer", str(question), "yes")
        assert answer.wait_exit(20) == 0, answer.output()
    assert send.wait_exit(30) == 0, send.output() + daemon.output()
    wait_until(lambda: desktop.ctl("count", "displayed") == "0", 20, what="the answered notification closed")
    assert daemon.stop() == 0, daemon.output()

    config = os.path.join(ada.home, ".config", "huddle")
    os.makedirs(config, exist_ok=True)
    with open(os.path.join(config, "config.toml"), "w") as f:
        f.write("notifications = false\n")
    daemon = ada.daemon("--dir", inbox)
    shown = len(desktop.shown())
    dee = Person(testbed[1], homes, "Dee", None)
    send, _ = start_send(dee, source, ada, daemon, 1)
    answer = ada.run("answer", "1", "no")
    assert answer.wait_exit(20) == 0, answer.output()
    assert send.wait_exit(60) not in (None, 0), send.output()
    assert len(desktop.shown()) == shown and desktop.ctl("count", "displayed") == "0", desktop.shown()
    assert not notification_log(daemon), daemon.output()
    assert daemon.stop() == 0, daemon.output()
