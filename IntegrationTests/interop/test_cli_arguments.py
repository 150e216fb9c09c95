"""The command line refuses bad input with a clear message and exit code 64 (EX_USAGE), before any
socket is opened, so these run without a test bed."""

import subprocess

import pytest

from huddle_cli import huddle_bin

BAD = [
    (["advertise", "", "_lab._tcp", "1"], "instance name '' must be 1 to 63 bytes"),
    (["advertise", "x" * 64, "_lab._tcp", "1"], "must be 1 to 63 bytes"),
    (["advertise", "X", "_lab_x._tcp", "1"], "only letters, digits and hyphens"),
    (["advertise", "X", "_sixteencharsxxxx._tcp", "1"], "1 to 15 characters"),
    (["advertise", "X", "_lab._sctp", "1"], "must be _tcp or _udp"),
    (["advertise", "X", "_lab._tcp", "70000"], "'70000' is invalid"),
    (["advertise", "X", "_lab._tcp", "1", "=v"], "TXT key ''"),
    (["advertise", "X", "_lab._tcp", "1", "--host", "a.b"], "single label"),
    (["discover", "nounderscore"], "not of the form _name._tcp"),
    (["discover", "_lab._tcp", "--timeout", "0"], "--timeout must be a positive"),
    (["discover", "_lab._tcp", "--count", "0"], "--count must be at least 1"),
    (["discover", "--ipv4", "--ipv6"], "exclude each other"),
    (["chat", "--peer", "10.1.2.3:0"], "the port must be 1 to 65535"),
    (["chat", "--peer", "[fd00::1"], "no ] after the IPv6 address"),
    (["send", "x", "--peer", "bob smith"], "the host has characters no host name or address has"),
    (["peers", "--mode", "server", "--peer", "10.1.2.3"], "--peer needs a mode that looks for peers"),
    (["doctor", "--timeout", "0"], "--timeout takes a number of seconds"),
    (["doctor", "--port", "0"], "--port takes 1 to 65535"),
]


@pytest.mark.parametrize("args,message", BAD, ids=[" ".join(a)[:40] for a, _ in BAD])
def test_bad_arguments(huddle_ok, args, message):
    """Each bad invocation exits 64 and says what is wrong on stderr, printing nothing on stdout."""
    proc = subprocess.run([huddle_bin(), *args], capture_output=True, text=True, timeout=20)
    assert proc.returncode == 64, (proc.returncode, proc.stderr)
    assert message in proc.stderr, proc.stderr
    assert proc.stdout == ""


def test_help_teaches(huddle_ok):
    """--help names both commands with an example; each command's help explains its output."""
    top = subprocess.run([huddle_bin(), "--help"], capture_output=True, text=True, timeout=20)
    assert top.returncode == 0
    assert "huddle discover _http._tcp" in top.stdout and "advertise" in top.stdout
    sub = subprocess.run([huddle_bin(), "discover", "--help"], capture_output=True, text=True, timeout=20)
    assert '"event":"added"' in sub.stdout.replace(" ", "").replace("\n", "")


UNAVAILABLE = ["chat", "peers", "send", "receive"]


@pytest.mark.parametrize("command", UNAVAILABLE)
def test_a_session_that_cannot_start_exits_69_and_says_why(huddle_ok, tmp_path, command):
    """Every session command maps a session that cannot start to one code, 69 (EX_UNAVAILABLE), and prints the
    reason once. A data directory that is a regular file makes the device key unreadable before any socket
    opens. `send`/`receive` used to exit 1 here, `chat`/`peers` 69."""
    home = tmp_path / "home"
    home.write_text("not a directory")
    args = {"send": ["send", str(tmp_path / "home"), "--to", "Bob"], "receive": ["receive", "--dir", str(tmp_path)]}
    argv = [huddle_bin(), *args.get(command, [command]), "--data-dir", str(home)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL)
    assert proc.returncode == 69, (proc.returncode, proc.stderr)
    lines = [l for l in proc.stderr.splitlines() if l.startswith("huddle: ") and "warning" not in l]
    assert len(lines) == 1 and str(home) in lines[0], proc.stderr
