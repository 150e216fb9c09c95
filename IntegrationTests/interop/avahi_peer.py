"""avahi-daemon as an interop peer inside one test host (docs/mdns.md §4.2, recipe A).

Per host: a private mount namespace with a tmpfs on /run (avahi's pid file and
socket paths are hard-wired there) and an empty /etc/avahi/services, a private
system D-Bus (so avahi-browse / avahi-publish work), and avahi-daemon in the
foreground with --no-drop-root --no-chroot. The dbus-daemon is the anchor of the
mount namespace; every avahi command runs via `nsenter -t <dbus pid> -m -n`.
"""

from __future__ import annotations

import os
import re

from testbed import Host, LineProc, TestbedError, run, wait_until

CONF = """[server]
host-name={hostname}
allow-interfaces={ifname}
use-ipv4=yes
use-ipv6=yes
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-workstation=no
publish-hinfo=no
"""


class Avahi:
    """An avahi-daemon + private D-Bus running in one test host."""

    def __init__(self, host: Host, hostname: str | None = None):
        self.host = host
        self.hostname = hostname or f"avahi-{host.letter}"
        self.dir = os.path.join(host.testbed.tmpdir, f"avahi-{host.letter}")
        self.bus: LineProc | None = None
        self.daemon: LineProc | None = None

    def start(self, timeout: float = 15) -> "Avahi":
        """Start D-Bus and avahi-daemon; return once the host name is established."""
        os.makedirs(os.path.join(self.dir, "services"), exist_ok=True)
        conf = os.path.join(self.dir, "avahi-daemon.conf")
        with open(conf, "w") as f:
            f.write(CONF.format(hostname=self.hostname, ifname=self.host.ifname))
        setup = ("mount -t tmpfs tmpfs /run && mkdir -p /run/dbus /run/avahi-daemon && "
                 f"mount --bind {self.dir}/services /etc/avahi/services && "
                 "exec dbus-daemon --system --nofork --nopidfile")
        self.bus = self.host.spawn("unshare", "-m", "--propagation", "private", "sh", "-c", setup,
                                   label=f"{self.host.letter}:dbus", merge_stderr=True)
        sock = f"/proc/{self.bus.pid}/root/run/dbus/system_bus_socket"
        wait_until(lambda: self.bus.proc.poll() is not None or os.path.exists(sock),
                   timeout=5, what="private system bus")
        if self.bus.proc.poll() is not None:
            raise TestbedError("dbus-daemon died\n" + self.bus.output())
        self.daemon = self.spawn("avahi-daemon", "-f", conf, "--no-drop-root", "--no-chroot",
                                 "--no-rlimits", "--no-proc-title", label="avahi-daemon")
        self.daemon.wait_line(lambda l: "Server startup complete" in l, timeout)
        self.host.testbed.cleanups.append(self.stop)
        return self

    def argv(self, *cmd: str) -> list[str]:
        """argv running cmd in this host's net + private mount namespace."""
        return ["nsenter", "-t", str(self.bus.pid), "-m", "-n", "--", *cmd]

    def spawn(self, *cmd: str, label: str | None = None) -> LineProc:
        """Start an avahi client/daemon command (stdout+stderr merged) as a LineProc."""
        label = f"{self.host.letter}:{label or cmd[0]}"
        return self.host.testbed.track(LineProc(self.argv(*cmd), label, merge_stderr=True))

    def publish(self, name: str, type_: str, port: int, txt: dict | list | None = None,
                subtype: str | None = None, wait: float | None = 10) -> LineProc:
        """avahi-publish -s; waits (if wait) for 'Established' and returns the process.

        The established (maybe renamed) name is in `published_name(proc)`.
        """
        cmd = ["avahi-publish", "-s"]
        if subtype:
            cmd += ["--subtype", subtype]
        cmd += [name, type_, str(port), *txt_args(txt)]
        proc = self.spawn(*cmd, label="avahi-publish")
        if wait:
            proc.wait_line(lambda l: l.startswith("Established under name"), wait)
        return proc

    def browse(self, type_: str, resolve: bool = True, timeout: float = 10) -> list[dict]:
        """One `avahi-browse -pt [-r] TYPE` run, parsed (see parse_browse_line)."""
        flags = "-prt" if resolve else "-pt"
        cp = run(self.argv("avahi-browse", flags, type_), timeout=timeout, check=False)
        return [e for e in map(parse_browse_line, cp.stdout.splitlines()) if e]

    def browse_until(self, type_: str, pred, timeout: float = 10) -> list[dict]:
        """Repeat browse() until pred(entries) is truthy; returns the entries."""
        last: list[dict] = []

        def attempt():
            """One browse; remember its entries for the error message."""
            nonlocal last
            last = self.browse(type_, timeout=timeout)
            return pred(last)
        try:
            wait_until(attempt, timeout, interval=0.3, what=f"avahi-browse {type_}")
        except TestbedError as e:
            raise TestbedError(f"{e}; last entries: {last}") from None
        return last

    def stop(self) -> None:
        """Stop avahi-daemon, then the bus (testbed teardown kills leftovers)."""
        for p in (self.daemon, self.bus):
            if p and p.proc.poll() is None:
                p.stop(timeout=3)


def published_name(proc: LineProc) -> str | None:
    """Last name avahi-publish reported as established, or None."""
    names = [m.group(1) for _, l in proc.lines
             if (m := re.match(r"Established under name '(.*)'$", l))]
    return names[-1] if names else None


def txt_args(txt: dict | list | None) -> list[str]:
    """TXT as command-line strings: {'k': 'v', 'flag': True} -> ['k=v', 'flag']."""
    if txt is None:
        return []
    if isinstance(txt, dict):
        return [k if v is True else f"{k}={v}" for k, v in txt.items()]
    return list(txt)


def unescape_label(s: str) -> str:
    """Undo avahi_escape_label: '\\.' '\\\\' and decimal '\\DDD' (bytes, UTF-8)."""
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        digits = s[i + 1:i + 4]
        if c == "\\" and len(digits) == 3 and digits.isdigit():
            out.append(int(s[i + 1:i + 4]))
            i += 4
        elif c == "\\" and i + 1 < len(s):
            out += s[i + 1].encode()
            i += 2
        else:
            out += c.encode()
            i += 1
    return out.decode("utf-8", errors="replace")


def parse_txt(field: str) -> dict:
    """avahi-browse -p TXT field ('"a=1" "flag"') -> {'a': '1', 'flag': True}."""
    result: dict = {}
    for raw in re.findall(r'"((?:[^"\\]|\\.)*)"', field):
        item = re.sub(r"\\(.)", r"\1", raw)
        key, eq, value = item.partition("=")
        if key and key not in result:
            result[key] = value if eq else True
    return result


def parse_browse_line(line: str) -> dict | None:
    """Parse one avahi-browse -p line ('+', '-' or '=') into a dict; None otherwise."""
    parts = line.split(";")
    if len(parts) < 6 or parts[0] not in "+-=":
        return None
    e = {"event": parts[0], "interface": parts[1], "protocol": parts[2],
         "name": unescape_label(parts[3]), "type": parts[4], "domain": parts[5]}
    if parts[0] == "=" and len(parts) >= 10:
        e.update(host=parts[6], address=parts[7], port=int(parts[8]),
                 txt=parse_txt(";".join(parts[9:])))
    return e


def resolved(entries: list[dict], name: str, protocol: str | None = None) -> list[dict]:
    """'=' entries for instance name (optionally only IPv4/IPv6)."""
    return [e for e in entries if e["event"] == "=" and e["name"] == name
            and (protocol is None or e["protocol"] == protocol)]


def wait_published(proc: LineProc, name: str, timeout: float = 10) -> None:
    """Wait until avahi-publish says it established exactly name."""
    proc.wait_line(lambda l: l == f"Established under name '{name}'", timeout)

