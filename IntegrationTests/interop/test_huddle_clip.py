"""Issue 6: `huddle clip sync / share / receive` between test hosts, each with its own X server (Xvfb), checked
with xclip: text and PNG arrive byte-identical with their types, simultaneous copies converge, secret items stay
home, a restarted peer gets the latest item only, and share / receive ask first (driven from a terminal in tmux).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import time
import zlib
import struct

import pytest

from conftest import skip_or_fail
from huddle_cli import huddle_bin
from xdisplay import XDisplay


@pytest.fixture
def xdisplays():
    """Factory: xdisplays() -> a fresh XDisplay; all stopped at the end."""
    made: list[XDisplay] = []

    def make() -> XDisplay:
        try:
            display = XDisplay()
        except RuntimeError as e:
            skip_or_fail(str(e))
        made.append(display)
        return display
    yield make
    for display in made:
        display.stop()


def clip(host, home: str, display: XDisplay, name: str, *args: str, stdin: bool = False):
    """`huddle clip ARGS --name NAME` inside host, with its own data directory and X display."""
    argv = [huddle_bin(), "clip", *args, "--name", name, "--host", f"huddle-{host.letter}",
            "--interface", host.ifname]
    return host.spawn(*argv, label=f"{host.letter}:clip {args[0]}", stdin=stdin,
                      env=display.env(HUDDLE_HOME=home))


def png(width: int, height: int, seed: int = 0) -> bytes:
    """A valid RGB PNG of pseudo-random pixels (incompressible, so its size is about 3·w·h)."""
    pixels = random.Random(seed).randbytes(3 * width * height)
    raw = b"".join(b"\x00" + pixels[row * 3 * width:(row + 1) * 3 * width] for row in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 1)) \
        + chunk(b"IEND", b"")


def marker(from_x: XDisplay, to_proc, text: bytes) -> None:
    """Copies `text` on `from_x` and waits until `to_proc` reports taking it (a line naming its type and size, so
    give each marker a length no other item of the test has): each sync's items reach a peer in
    order, so anything the sender would have sent before (an echo, an old item, a secret) has arrived by then.
    Used instead of waiting a while to show that something did not come."""
    mark = len(to_proc.lines)
    from_x.copy(text)
    size = f"text/plain;charset=utf-8 ({len(text)} B)"
    to_proc.wait_line(lambda l: l.startswith("←") and l.endswith(size), 20, start=mark)


def syncing(testbed, homes, xdisplays, count: int, *extra: str):
    """`clip sync --trust-on-first-use` on the first `count` hosts; returns (procs, displays) once all are
    connected to each other."""
    names = ["Ada", "Bob", "Cy"][:count]
    displays = [xdisplays() for _ in range(count)]
    procs = [clip(testbed[i], homes(names[i]), displays[i], names[i], "sync", "--trust-on-first-use", *extra)
             for i in range(count)]
    for i, proc in enumerate(procs):
        for j, other in enumerate(names):
            if i != j:
                proc.wait_line(lambda l, other=other: l == f"+ {other} connected", 30)
    return procs, displays


@pytest.mark.hosts(2)
def test_text_and_png_reach_the_other_host_identical_with_their_types(testbed, huddle, homes, xdisplays):
    (ada, bob), (x_ada, x_bob) = syncing(testbed, homes, xdisplays, 2)
    text = "hello from Ada, ünïcode ✓".encode()
    x_ada.copy(text)
    x_bob.wait_for(text, "UTF8_STRING")
    assert x_bob.paste("text/plain;charset=utf-8") == text
    assert "UTF8_STRING" in x_bob.targets()
    ada.wait_line(lambda l: l.startswith("→ shared text/plain") and "with Bob" in l, 5)
    bob.wait_line(lambda l: l.startswith("← Ada's copy is on the clipboard"), 5)
    image = png(200, 150, seed=1)
    x_bob.copy(image, "image/png")
    x_ada.wait_for(image, "image/png")
    assert "image/png" in x_ada.targets()
    # A 1 MiB-class image as well, the other way.
    big = png(600, 600, seed=2)
    assert len(big) > 1_000_000
    mark = len(ada.lines)
    x_ada.copy(big, "image/png")
    ada.wait_line(lambda l: l.startswith("→ shared image/png (1.0 MiB)"), 20, start=mark)
    x_bob.wait_for(big, "image/png", timeout=20)
    # Nothing echoed back: Ada shared twice (text, big image) and took once (the small image) before Bob's marker;
    # Bob shared the small image and the marker.
    marker(x_bob, ada, b"marker after the image")
    assert sum(1 for _, l in ada.lines if l.startswith("→ shared")) == 2, ada.output()
    assert sum(1 for _, l in ada.lines if l.startswith("←")) == 2, ada.output()
    assert sum(1 for _, l in bob.lines if l.startswith("→ shared")) == 2, bob.output()
    for proc in (ada, bob):
        assert proc.stop() == 0, proc.output()


@pytest.mark.hosts(3)
def test_three_hosts_converge_and_a_secret_item_stays_home(testbed, huddle, homes, xdisplays):
    procs, displays = syncing(testbed, homes, xdisplays, 3)
    displays[0].copy(b"first")
    for display in displays[1:]:
        display.wait_for(b"first")
    # Simultaneous copies on two hosts: every clipboard ends with the same one of the two.
    for round_ in range(3):
        a_text, b_text = f"from Ada {round_}".encode(), f"from Bob {round_}".encode()
        owners = [subprocess.Popen(["xclip", "-quiet", "-selection", "clipboard", "-i"], stdin=subprocess.PIPE,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=d.env())
                  for d in displays[:2]]
        for proc, data in zip(owners, (a_text, b_text)):
            proc.stdin.write(data)
        for proc in owners:
            proc.stdin.close()
        displays[0].owners.append(owners[0])
        displays[1].owners.append(owners[1])
        # Settled: all three equal, and still so a second later (an equal moment can pass while the later copy
        # is on its way).
        deadline = time.monotonic() + 15
        settled_since = None
        while time.monotonic() < deadline:
            seen = [d.paste() for d in displays]
            if seen[0] in (a_text, b_text) and seen.count(seen[0]) == 3:
                settled_since = settled_since or (time.monotonic(), seen[0])
                if settled_since[1] != seen[0]:
                    settled_since = (time.monotonic(), seen[0])
                if time.monotonic() - settled_since[0] >= 1:
                    break
            else:
                settled_since = None
            time.sleep(0.05)
        assert seen[0] in (a_text, b_text) and seen.count(seen[0]) == 3, \
            f"{seen}\n" + "\n".join(proc.output() for proc in procs)
        time.sleep(0.5)
        assert [d.paste() for d in displays] == seen, "the clipboards moved after converging"
    # A password manager's copy: text plus x-kde-passwordManagerHint=secret, offered by `huddle pb copy`.
    hint = os.path.join(homes("files"), "hint")
    with open(hint, "w") as f:
        f.write("secret")
    subprocess.run([huddle_bin(), "pb", "copy", "--type", "text/plain", "--also", f"x-kde-passwordManagerHint={hint}"],
                   input=b"hunter2", env=displays[2].env(), check=True, timeout=20)
    assert displays[2].paste() == b"hunter2"
    procs[2].wait_line(lambda l: l.startswith("! not shared") and "secret" in l, 10)
    # Had the secret gone out, it would have reached the others before this marker.
    marks = [len(proc.lines) for proc in procs[:2]]
    displays[2].copy(b"marker after the secret")
    for proc, mark in zip(procs[:2], marks):
        proc.wait_line(lambda l: l.startswith("←") and l.endswith(f"({len(b'marker after the secret')} B)"), 20,
                       start=mark)
    for display in displays[:2]:
        display.wait_for(b"marker after the secret")
    for proc in procs[:2]:
        assert not any(b"hunter2".decode() in l for _, l in proc.lines), proc.output()
    for proc in procs:
        assert proc.stop() == 0, proc.output()


@pytest.mark.hosts(2)
def test_a_restarted_peer_gets_the_latest_item_and_no_history(testbed, huddle, homes, xdisplays):
    (ada, bob), (x_ada, x_bob) = syncing(testbed, homes, xdisplays, 2)
    for i in range(3):
        x_ada.copy(f"old {i}".encode())
        x_bob.wait_for(f"old {i}".encode())
    assert bob.stop() == 0, bob.output()
    ada.wait_line(lambda l: l == "- Bob left", 20)
    x_ada.copy(b"latest")
    bob = clip(testbed[1], homes("Bob"), x_bob, "Bob", "sync", "--trust-on-first-use")
    bob.wait_line(lambda l: l == "+ Ada connected", 30)
    x_bob.wait_for(b"latest")
    # Older items would have come before the latest; a second copy of it, before Ada's marker.
    marker(x_ada, bob, b"marker after the latest")
    taken = [l for _, l in bob.lines if l.startswith("←")]
    assert len(taken) == 2, bob.output()
    assert not any("pairs" in l or "Code:" in l for _, l in bob.lines), "a paired peer must not be asked again"
    assert bob.stop() == 0 and ada.stop() == 0


class Tmux:
    """A tmux server of our own (its own socket) running one command in a pane inside a test host."""

    def __init__(self, host, command: list[str], env: dict) -> None:
        if shutil.which("tmux") is None:
            skip_or_fail("tmux is needed (apt-get install tmux)")
        self.socket = f"/tmp/huddle-tmux-{os.getpid()}-{host.letter}-{time.monotonic_ns()}"
        shell = " ".join(f"{k}='{v}'" for k, v in env.items()) + " " + " ".join(command)
        # The pane stays after the command ends, with its exit status, until the server is killed.
        script = f"env {shell}; echo EXIT=$?; sleep 60"
        subprocess.run(host.argv("tmux", "-S", self.socket, "new-session", "-d", "-x", "200", "-y", "50", script),
                       check=True, timeout=10)

    def screen(self) -> str:
        cp = subprocess.run(["tmux", "-S", self.socket, "capture-pane", "-p", "-J", "-S", "-200"],
                            capture_output=True, text=True, timeout=10)
        return cp.stdout

    def wait(self, needle: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if needle in screen:
                return screen
            time.sleep(0.05)
        raise AssertionError(f"tmux pane never showed {needle!r}:\n{self.screen()}")

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "-S", self.socket, "send-keys", *keys], check=True, timeout=10)

    def close(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True, timeout=10)
        if os.path.exists(self.socket):
            os.unlink(self.socket)


@pytest.mark.hosts(2)
def test_share_and_receive_ask_first_and_a_decline_writes_nothing(testbed, huddle, homes, xdisplays):
    a, b = testbed[0], testbed[1]
    x_ada, x_bob = xdisplays(), xdisplays()
    receive = [huddle_bin(), "clip", "receive", "--trust-on-first-use", "--count", "2", "--name", "Bob",
               "--host", "huddle-b", "--interface", b.ifname]
    pane = Tmux(b, receive, {"DISPLAY": x_bob.display, "HUDDLE_HOME": homes("Bob"), "SWIFT_BACKTRACE": "enable=no"})
    try:
        pane.wait("Waiting for shared clipboard items as Bob")
        x_ada.copy(b"shared on purpose")
        share = clip(a, homes("Ada"), x_ada, "Ada", "share", "--to", "Bob", "--trust-on-first-use", stdin=True)
        share.wait_line(lambda l: l.startswith("Share with Bob: text/plain") and '"shared on purpose"' in l, 30)
        share.send("y")
        screen = pane.wait("? Ada shares text/plain")
        assert '"shared on purpose"' in screen and "Put it on the clipboard? [y/n]" in screen
        assert x_bob.paste() is None, "nothing is written before the answer"
        pane.keys("y", "Enter")
        pane.wait("on the clipboard: text/plain")
        share.wait_line(lambda l: l == "Bob took it", 10)
        assert share.wait_exit(10) == 0, share.output()
        assert x_bob.paste() == b"shared on purpose"
        # The second one is declined: Bob's clipboard keeps the first.
        x_ada.copy(b"not wanted")
        share = clip(a, homes("Ada"), x_ada, "Ada", "share", "--to", "Bob", "--yes")
        pane.wait('"not wanted"')
        pane.keys("n", "Enter")
        pane.wait("declined; nothing written")
        assert share.wait_exit(15) == 1, share.output()
        assert any("Bob declined: declined by the user" in l for l in share.err_lines), share.err_lines
        assert x_bob.paste() == b"shared on purpose"
        pane.wait("EXIT=0")
    finally:
        pane.close()


@pytest.mark.hosts(3)
def test_sync_pairs_once_by_code_and_refuses_an_unpaired_machine_with_a_reason(testbed, huddle, homes, xdisplays):
    a, b, c = testbed[0], testbed[1], testbed[2]
    x_ada, x_bob, x_cy = xdisplays(), xdisplays(), xdisplays()
    ada = clip(a, homes("Ada"), x_ada, "Ada", "sync", stdin=True)
    bob = clip(b, homes("Bob"), x_bob, "Bob", "sync", stdin=True)
    codes = []
    for proc in (ada, bob):
        line = proc.wait_line(lambda l: l.startswith("? pair with ") and "Code:" in l, 30)
        codes.append(line.split("Code: ")[1].split(" —")[0])
    assert codes[0] == codes[1], codes
    ada.send("y")
    bob.send("y")
    ada.wait_line(lambda l: l == "+ Bob connected", 15)
    x_ada.copy(b"paired by code")
    x_bob.wait_for(b"paired by code")
    for proc in (ada, bob):
        assert proc.stop() == 0, proc.output()
    # Restarted with no terminal to ask (standard input is /dev/null, as under systemd): the pair reconnects by
    # itself, and a first contact from Cy is refused with the reason on Cy's side and here.
    ada = clip(a, homes("Ada"), x_ada, "Ada", "sync", "--quiet")
    bob = clip(b, homes("Bob"), x_bob, "Bob", "sync")
    bob.wait_line(lambda l: l == "+ Ada connected", 30)
    cy = clip(c, homes("Cy"), x_cy, "Cy", "sync")
    for proc in (bob, cy):
        proc.wait_line(lambda l: l.startswith("! not paired with"), 30)
    x_cy.copy(b"from an unpaired machine")
    x_bob.copy(b"between paired machines")
    x_ada.wait_for(b"between paired machines")
    time.sleep(1)
    assert x_ada.paste() == b"between paired machines"
    assert not any(l.startswith("+ Cy") for _, l in bob.lines), bob.output()
    # --quiet: only refusals and problems.
    assert all(l.startswith("!") or l.startswith("?") for _, l in ada.lines), ada.output()
    for proc in (ada, bob, cy):
        assert proc.stop() == 0, proc.output()


@pytest.mark.hosts(2)
def test_after_a_network_drop_only_the_latest_item_arrives(testbed, huddle, homes, xdisplays):
    (ada, bob), (x_ada, x_bob) = syncing(testbed, homes, xdisplays, 2, "--disconnect-timeout", "2")
    b = testbed[1]
    x_ada.copy(b"before the drop")
    x_bob.wait_for(b"before the drop")
    mark = len(bob.lines)
    b.run("ip", "link", "set", b.ifname, "down")
    try:
        bob.wait_line(lambda l: l == "- Ada left", 15, start=mark)
        for i in range(3):
            x_ada.copy(f"during the drop {i}".encode())
            time.sleep(0.3)
    finally:
        b.run("ip", "link", "set", b.ifname, "up")
    bob.wait_line(lambda l: l == "+ Ada connected", 60, start=mark)
    x_bob.wait_for(b"during the drop 2", timeout=15)
    # The earlier items would have come before the latest; a second copy of it, before Ada's marker.
    marker(x_ada, bob, b"marker after the drop")
    taken = [l for _, l in bob.lines[mark:] if l.startswith("←")]
    assert len(taken) == 2, bob.output()
    x_bob.wait_for(b"marker after the drop")
    for proc in (ada, bob):
        assert proc.stop() == 0, proc.output()


@pytest.mark.hosts(3)
def test_a_large_image_goes_as_a_transfer_and_an_over_cap_machine_refuses_it(testbed, huddle, homes, xdisplays):
    """A 5 MiB PNG (over the 1 MiB that goes as one message) travels as an in-memory transfer and arrives
    identical; a machine with --max-size 2M refuses it, and both it and the sender say why."""
    names = ["Ada", "Bob", "Cy"]
    displays = [xdisplays() for _ in range(3)]
    extra = [[], [], ["--max-size", "2M"]]
    procs = [clip(testbed[i], homes(names[i]), displays[i], names[i], "sync", "--trust-on-first-use", *extra[i])
             for i in range(3)]
    for i, proc in enumerate(procs):
        for j, other in enumerate(names):
            if i != j:
                proc.wait_line(lambda l, other=other: l == f"+ {other} connected", 30)
    image = png(1300, 1300, seed=7)
    assert len(image) > 5_000_000
    displays[0].copy(image, "image/png")
    procs[0].wait_line(lambda l: l.startswith("→ shared image/png (4.8 MiB)"), 30)
    displays[1].wait_for(image, "image/png", timeout=30)
    procs[2].wait_line(lambda l: l.startswith("! not taken from Ada") and "over the 2.0 MiB limit" in l, 30)
    procs[0].wait_line(lambda l: l.startswith("! could not send the item to Cy") and "2.0 MiB limit" in l, 30)
    assert displays[2].paste("image/png") in (None, b"")
    for proc in procs:
        assert proc.stop() == 0, proc.output()


@pytest.mark.hosts(2)
def test_a_large_shared_image_arrives_with_progress_and_is_saved(testbed, huddle, homes, xdisplays):
    a, b = testbed[0], testbed[1]
    x_ada, x_bob = xdisplays(), xdisplays()
    out = os.path.join(homes("files"), "shot.png")
    receive = clip(b, homes("Bob"), x_bob, "Bob", "receive", "--trust-on-first-use", "--yes", "--count", "1",
                   "--out", out, "--type", "image/png")
    receive.wait_line(lambda l: l.startswith("Waiting for shared clipboard items"), 15)
    image = png(1000, 1000, seed=9)
    x_ada.copy(image, "image/png")
    share = clip(a, homes("Ada"), x_ada, "Ada", "share", "--to", "Bob", "--yes")
    share.wait_line(lambda l: l == "Bob took it", 60)
    assert share.wait_exit(15) == 0, share.output()
    assert receive.wait_exit(15) == 0, receive.output()
    assert any(l.startswith("receiving") and "100%" in l for _, l in receive.lines), receive.output()
    assert any(l == f"saved to {out}" for _, l in receive.lines), receive.output()
    with open(out, "rb") as f:
        assert f.read() == image
