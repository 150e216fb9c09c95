"""Run the python-zeroconf peer scripts (peers/*.py) inside test hosts."""

from __future__ import annotations

import os
import sys

from testbed import Host, LineProc

PEERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers")


def _script(name: str) -> list[str]:
    """argv prefix running peers/<name> with this interpreter, unbuffered."""
    return [sys.executable, "-u", os.path.join(PEERS, name)]


def txt_strings(txt: dict | list | None) -> list[str]:
    """{'k': 'v', 'flag': True} -> ['k=v', 'flag']."""
    if not txt:
        return []
    if isinstance(txt, dict):
        return [k if v is True else f"{k}={v}" for k, v in txt.items()]
    return list(txt)


def zc_register(host: Host, name: str, type_: str, port: int, txt: dict | list | None = None,
                server: str | None = None, addresses: list[str] | None = None,
                rename: bool = True, lifetime: float = 300, wait: float | None = 15,
                ip: str = "all", extra: list[str] | tuple = ()) -> LineProc:
    """Register a service with python-zeroconf in host (stdin commands enabled).

    Waits (if wait) for the {"event":"registered"} line; its "name" is the final name
    (python-zeroconf renames to `Name-2` on a conflict it sees in its cache).
    """
    argv = _script("zc_register.py") + [name, type_, str(port), *txt_strings(txt),
                                        "--server", server or f"zc-{host.letter}",
                                        "--lifetime", str(lifetime), "--ip", ip, *extra]
    for a in addresses or []:
        argv += ["--addr", a]
    if not rename:
        argv.append("--no-rename")
    proc = host.spawn(*argv, label=f"{host.letter}:zc_register", stdin=True)
    if wait:
        proc.wait_event(lambda e: e.get("event") in ("registered", "error"), wait)
    return proc


def registered_name(proc: LineProc) -> str | None:
    """Name from the zc_register 'registered' event, or None."""
    regs = [e for e in proc.events() if e.get("event") == "registered"]
    return regs[-1]["name"] if regs else None


def zc_browse(host: Host, *types: str, timeout: float = 20, count: int | None = None,
              ip: str = "all") -> LineProc:
    """Start a python-zeroconf browser in host; events arrive as JSON lines."""
    argv = _script("zc_browse.py") + [*types, "--timeout", str(timeout), "--ip", ip]
    if count:
        argv += ["--count", str(count)]
    return host.spawn(*argv, label=f"{host.letter}:zc_browse")


def has_v4(addresses: list[str]) -> bool:
    """True if some address is IPv4."""
    return any("." in a and ":" not in a for a in addresses or [])


def has_v6(addresses: list[str]) -> bool:
    """True if some address is IPv6."""
    return any(":" in a for a in addresses or [])


def strip_scope(addresses: list[str]) -> list[str]:
    """['fe80::1%3', '10.0.0.1'] -> ['fe80::1', '10.0.0.1']."""
    return [a.split("%")[0] for a in addresses or []]
