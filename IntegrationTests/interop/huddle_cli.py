"""Start the `huddle` CLI inside test hosts and read its JSON lines.

Binary: $HUDDLE_BIN, else <repo>/.build/debug/huddle. This module never builds it.
"""

from __future__ import annotations

import os

from testbed import Host, LineProc, TestbedError, run

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def huddle_bin() -> str:
    """Path of the huddle binary under test."""
    return os.environ.get("HUDDLE_BIN") or os.path.join(REPO, ".build", "debug", "huddle")


def huddle_unavailable() -> str | None:
    """None if the binary exists and its discover/advertise support --json, else why not."""
    path = huddle_bin()
    if not os.access(path, os.X_OK):
        return f"huddle binary not found at {path} (build it or set HUDDLE_BIN)"
    for sub in ("discover", "advertise"):
        try:
            cp = run([path, sub, "--help"], timeout=10, check=False)
        except TestbedError as e:
            return f"`huddle {sub} --help` hangs: {e}"
        if "--json" not in cp.stdout + cp.stderr:
            return f"`huddle {sub} --help` does not mention --json (CLI not implemented yet?)"
    return None


def huddle(host: Host, *args: str, stdin: bool = False) -> LineProc:
    """Start `huddle ARGS...` inside host; its stdout JSON lines arrive in .events()."""
    return host.spawn(huddle_bin(), *args, label=f"{host.letter}:huddle {args[0] if args else ''}",
                      stdin=stdin)


def advertise(host: Host, name: str, type_: str, port: int, txt: dict | list | None = None,
              host_label: str | None = None, control: bool = False, extra: tuple = (),
              wait: float | None = 15) -> LineProc:
    """`huddle advertise NAME TYPE PORT k=v.. --json --host huddle-<x> --interface veth-<x>`;
    waits for 'registered'.

    Each host gets its own host label by default: all namespaces share the
    machine's UTS host name, so without --host they would conflict on it.
    --interface is needed because Huddle's default filter skips veth* interfaces.
    """
    from zc_peer import txt_strings
    args = ["advertise", name, type_, str(port), *txt_strings(txt), "--json",
            "--host", host_label or f"huddle-{host.letter}", "--interface", host.ifname, *extra]
    if control:
        args.append("--control")
    proc = huddle(host, *args, stdin=control)
    if wait:
        proc.wait_event(lambda e: e.get("event") == "registered", wait)
    return proc


def registered(proc: LineProc) -> dict:
    """The last 'registered' event of a huddle advertise process."""
    regs = [e for e in proc.events() if e.get("event") == "registered"]
    if not regs:
        raise AssertionError("huddle advertise printed no 'registered' event\n" + proc.output())
    return regs[-1]


def discover(host: Host, type_: str | None = None, timeout: float = 10,
             count: int | None = None, extra: tuple = ()) -> LineProc:
    """`huddle discover [TYPE] --json --timeout S [--count N] --interface veth-<x>` in host."""
    args = ["discover"] + ([type_] if type_ else []) + ["--json", "--timeout", str(timeout),
                                                        "--interface", host.ifname]
    if count:
        args += ["--count", str(count)]
    return huddle(host, *args, *extra)


def renames(proc: LineProc) -> list[dict]:
    """All 'renamed' events printed by a huddle advertise process."""
    return [e for e in proc.events() if e.get("event") == "renamed"]
