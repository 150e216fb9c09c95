"""kdeconnectd in a test host: the real KDE Connect daemon (Debian's kdeconnect 22.12, protocol v7)
as a peer for interop tests.

KDE Connect announces itself with a UDP identity broadcast to 255.255.255.255:1716; a daemon that
hears one opens a TCP connection (ports 1716-1764) to the announcer and sends its own identity
in plain text, then both start TLS over that connection with self-signed certificates (pairing
pins them). Payloads (shared files) go over a second TLS connection to a port the sender offers
(1739 upwards). scripts/test installs it when missing, by package name:

    apt-get install -y --no-install-recommends kdeconnect dbus dbus-x11 xvfb xauth

`KdeConnect(host, name, display=False).start()` (or the `kdeconnect` fixture in conftest.py:
`kdeconnect(host, name, **kw)`) runs, inside host's namespace and through host.spawn (so testbed
teardown ends them by pid):

- a private dbus-daemon with a config of our own: no service directories, so nothing on it is
  ever activated (a call to org.kde.kdeconnect before the daemon owns the name fails instead of
  starting a second kdeconnectd outside our control), and monitoring allowed;
- kdeconnectd under `env -i` with HOME, the XDG directories and the bus all in its own directory,
  QT_LOGGING_RULES=kdeconnect.*.debug=true (its log names identities, links, transfers) and
  QT_QPA_PLATFORM=offscreen, or with display=True a private Xvfb in the host and
  QT_QPA_PLATFORM=xcb, which is what makes its clipboard plugin work (offscreen has no clipboard
  a second program can drive or read);
- `busctl monitor` on the private bus, which records the desktop notifications kdeconnectd tries
  to show (nobody serves org.freedesktop.Notifications there, the call is still on the bus): the
  pairing request with the key the user compares, pings; and the share plugin's signal
  shareReceived, sent once a received file or text is complete, in arrival order.

Everything it writes is in its own directory under Testbed.tmpdir:

    <tmpdir>/kdeconnect-<letter>-<n>/
        home/            HOME
        home/Downloads/  received files (a file is written as <name>.part, then renamed)
        config/          XDG_CONFIG_HOME: kdeconnect/config (its announced name), certificate.pem,
                         privateKey.pem, trusted_devices (paired peers and their certificates)
        data/ cache/     XDG_DATA_HOME, XDG_CACHE_HOME
        run/             XDG_RUNTIME_DIR (mode 700)
        texts/           kdeconnectd's working directory: a shared text is written there as
                         kdeconnect-XXXXXX.txt (a relative temporary file), then opened
        bin/xdg-open     first in its PATH: a stub that records what kdeconnectd opens (under xcb
                         it opens received texts) in xdg-open.log, one JSON object a line
        bus, dbus.conf   the private session bus and its config

Helpers talk to the daemon over its bus with `busctl --json=short` (outside the namespace: the
bus is a socket file), never with `kdeconnect-cli -l`, which asks the daemon to rediscover: it
broadcasts again, the peer opens a second link, and for a device that is not paired yet the
swap destroys and re-creates the device, losing a pairing request in flight. The same happens
when two daemons broadcast at the same moment and each connects to the other; start() therefore
returns only after this daemon has broadcast its identity, so daemons started one after the other
(as tests do) never broadcast together: the later one's broadcast is answered by the earlier ones,
one link per pair.

The host needs a default route: the broadcast to 255.255.255.255 is routed like any other
packet, and with only the subnet's route it fails (quietly: the daemons never meet). So the bed
must be made with `@pytest.mark.hosts(k, default_route=True)` (testbed.py: a route via an address
on the host's own subnet that nobody has; the bridges have no uplink, so the broadcast reaches the
bed's hosts and nothing else). start() refuses a bed without it.

start() returns in about 0.2 s: once kdeconnect-cli --my-id prints the id (the daemon answers on
its bus), its identity broadcast is logged, and it announces the name asked for. A daemon started
later is found by the earlier ones within milliseconds.

Attributes: host, name, display (":N" or None), dir, home, download_dir, text_dir, config_dir,
cert_file, bus_address, id (its device id, a UUID with '_' for '-' and around it), proc (its
LineProc), bus (the dbus-daemon's), monitor (busctl monitor's), xvfb. Helpers (bounded):

    devices(paired_only=False) -> [{"id", "name", "type", "reachable", "paired",
        "pairing_requested"}] for every device it knows (reachable or paired)
    device(device_id) -> that dict or None; wait_device(name, id or predicate, timeout)
    request_pair(id), accept_pair(id), reject_pair(id), unpair(id)
    pairing_requests() -> ids of devices waiting for an answer; wait_pair_request(timeout) -> id
    is_paired(id); wait_paired(id, timeout)
    encryption_info(id) -> the text its "encryption info" shows: this device's and the peer's
        certificate SHA-256 (the peer's is the hash of nothing until paired)
    verification_key(id) -> 64 hex digits, the same on both sides; a pairing request's
        notification shows its first 8 ("Key: 7eab2598...")
    notifications() -> [{"summary", "body", "app"}] it tried to show; wait_notification(pred, t)
    share_file(path, id), share_text(text, id), ping(id, message=None)
    shares() -> [{"device", "path", "text"}]: what it received, in order, as it announced each
        on its bus once complete (signal shareReceived)
    received_files(); wait_file(name, timeout, size=None) -> path (renamed from .part, announced)
    received_texts() -> texts in arrival order; wait_text(text or predicate or None, timeout)
    opened() -> what it passed to xdg-open (under xcb: each received text, after writing it);
        wait_opened(pred=None, timeout)
    clipboard_set(text), clipboard_get(), wait_clipboard(text, timeout) (display=True only)
    identities() -> identity packets it logged (as the TCP-accepting side, debug log)
    cli(*args) -> kdeconnect-cli in the host with its environment
    log, wait_log(pred, timeout, start=0), output()

Module functions: kdeconnect_unavailable(display=False) (why it cannot run here, or None),
kdeconnectd_path(), cert_sha256(pem) (as encryption info shows it), parse_encryption_info(text),
verification_key(cert_a, cert_b) (the key both sides show, computed from their certificates:
SHA-256 of the bytewise larger DER SubjectPublicKeyInfo followed by the smaller), sha256_file.
"""

from __future__ import annotations

import glob
import hashlib
import itertools
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlparse
from urllib.request import url2pathname
from xml.sax.saxutils import escape

from testbed import PID, Host, LineProc, TestbedError, run, wait_until

BUS_NAME = "org.kde.kdeconnect"
DAEMON_PATH = "/modules/kdeconnect"
DAEMON_IFACE = "org.kde.kdeconnect.daemon"
DEVICE_IFACE = "org.kde.kdeconnect.device"
SHARE_IFACE = "org.kde.kdeconnect.device.share"
PING_IFACE = "org.kde.kdeconnect.device.ping"
UDP_PORT = 1716
TCP_PORTS = range(1716, 1765)
PROTOCOL_VERSION = 7
ID_RE = re.compile(r"\w{16,}")
TOOLS = ("kdeconnect-cli", "dbus-daemon", "busctl")
DISPLAY_TOOLS = ("Xvfb", "xclip")
_SERIAL = itertools.count(1)
_DISPLAY_SERIAL = itertools.count()
_BROADCAST_LINE = "Broadcasting identity packet"

_DBUS_CONF = """<busconfig>
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

# The stub xdg-open: one JSON line per call (argument, file path, the file's text).
_XDG_OPEN = """#!{python}
import json, sys, urllib.parse, urllib.request
arg = sys.argv[1] if len(sys.argv) > 1 else ""
path = arg
if arg.startswith("file:"):
    path = urllib.request.url2pathname(urllib.parse.urlparse(arg).path)
try:
    with open(path, encoding="utf-8", errors="replace") as f:
        content = f.read()
except OSError:
    content = None
with open({log!r}, "a") as f:
    f.write(json.dumps({{"arg": arg, "path": path, "content": content}}) + "\\n")
"""


def kdeconnectd_path() -> str | None:
    """Where the kdeconnect package put kdeconnectd (a libexec directory), or None."""
    for pattern in ("/usr/lib/*/libexec/kdeconnectd", "/usr/libexec/kdeconnectd",
                    "/usr/lib/libexec/kdeconnectd"):
        for path in sorted(glob.glob(pattern)):
            if os.access(path, os.X_OK):
                return path
    return None


def kdeconnect_unavailable(display: bool = False) -> str | None:
    """None if KdeConnect can run here (with display: under Xvfb too), else why not."""
    missing = [] if kdeconnectd_path() else ["kdeconnectd"]
    missing += [t for t in TOOLS + (DISPLAY_TOOLS if display else ()) if not shutil.which(t)]
    if missing:
        return (f"missing {', '.join(missing)}: scripts/test installs them as root (apt-get "
                "install -y --no-install-recommends kdeconnect dbus dbus-x11 xvfb xauth xclip; "
                "busctl is in systemd)")
    return None


def cert_sha256(pem_path: str) -> str:
    """SHA-256 of a PEM certificate's DER form as KDE Connect shows it: lowercase hex pairs
    joined by ':'."""
    with open(pem_path) as f:
        der = ssl.PEM_cert_to_DER_cert(f.read())
    return ":".join(f"{b:02x}" for b in hashlib.sha256(der).digest())


def parse_encryption_info(text: str) -> dict[str, str]:
    """encryptionInfo's text as {"own": ..., "remote": ...} (the two SHA-256 fingerprints)."""
    got = {}
    for key, label in (("own", "your device"), ("remote", "remote device")):
        m = re.search(rf"SHA256 fingerprint of {label} certificate is: ([0-9a-f:]+)", text)
        if m:
            got[key] = m.group(1)
    return got


def _plain(value: Any) -> Any:
    """busctl's JSON ({"type": ..., "data": ...} for every variant) as plain values."""
    if isinstance(value, dict):
        if set(value) == {"type", "data"}:
            return _plain(value["data"])
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _qdebug_bytes(quoted: str) -> str:
    """The text of a QByteArray as QDebug prints it ("..." with \\" \\\\ \\n \\xNN escapes)."""
    body = quoted.strip()
    if body.startswith('"') and body.endswith('"'):
        body = body[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            n = body[i + 1]
            if n == "x":
                m = re.match(r"[0-9a-fA-F]{1,2}", body[i + 2:])
                out.append(int(m.group(0), 16))
                i += 2 + len(m.group(0))
                continue
            out += {"n": b"\n", "r": b"\r", "t": b"\t"}.get(n, n.encode())
            i += 2
        elif body.startswith('""', i):  # QDebug splits "\x41""42" to end a hex escape
            i += 2
        else:
            out += c.encode()
            i += 1
    return out.decode("utf-8", "replace")


class KdeConnect:
    """kdeconnectd with a private D-Bus (and Xvfb with display=True) in a test host; see the
    module doc."""

    def __init__(self, host: Host, name: str, *, display: bool = False,
                 start_timeout: float = 20):
        self.host, self.testbed = host, host.testbed
        self.name, self.want_display, self.start_timeout = name, display, start_timeout
        n = next(_SERIAL)
        self.dir = os.path.join(self.testbed.tmpdir, f"kdeconnect-{host.letter}-{n}")
        self.home = os.path.join(self.dir, "home")
        self.download_dir = os.path.join(self.home, "Downloads")
        self.config_dir = os.path.join(self.dir, "config")
        self.cert_file = os.path.join(self.config_dir, "kdeconnect", "certificate.pem")
        self.runtime_dir = os.path.join(self.dir, "run")
        self.text_dir = os.path.join(self.dir, "texts")
        self.bin_dir = os.path.join(self.dir, "bin")
        self.xdg_open_log = os.path.join(self.dir, "xdg-open.log")
        self.bus_socket = os.path.join(self.dir, "bus")
        self.bus_address = f"unix:path={self.bus_socket}"
        self.display: str | None = None
        self.id = ""
        self.proc: LineProc | None = None
        self.bus: LineProc | None = None
        self.monitor: LineProc | None = None
        self.xvfb: LineProc | None = None

    def __repr__(self) -> str:
        return f"KdeConnect({self.name!r} on {self.host.ns}, id {self.id or '?'})"

    # -- process -------------------------------------------------------------------------------

    def env(self) -> dict[str, str]:
        """The whole environment of kdeconnectd (and of kdeconnect-cli run for it)."""
        env = {"PATH": f"{self.bin_dir}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
               "HOME": self.home, "XDG_CONFIG_HOME": self.config_dir,
               "XDG_DATA_HOME": os.path.join(self.dir, "data"),
               "XDG_CACHE_HOME": os.path.join(self.dir, "cache"),
               "XDG_RUNTIME_DIR": self.runtime_dir, "DBUS_SESSION_BUS_ADDRESS": self.bus_address,
               "QT_LOGGING_RULES": "kdeconnect.*.debug=true",
               "QT_QPA_PLATFORM": "xcb" if self.display else "offscreen"}
        if self.display:
            env["DISPLAY"] = self.display
        return env

    def _argv(self, *cmd: str) -> list[str]:
        """cmd under `env -i` with env(), in the text directory."""
        return ["env", "-i", "-C", self.text_dir, *(f"{k}={v}" for k, v in self.env().items()),
                *cmd]

    def _prepare(self) -> None:
        """Its directories, its announced name, the bus config and the xdg-open stub."""
        for d in (self.download_dir, os.path.dirname(self.cert_file), self.text_dir,
                  self.bin_dir, os.path.join(self.dir, "data"), os.path.join(self.dir, "cache")):
            os.makedirs(d, exist_ok=True)
        os.makedirs(self.runtime_dir, mode=0o700, exist_ok=True)
        with open(os.path.join(self.config_dir, "kdeconnect", "config"), "w") as f:
            f.write(f"[General]\nname={self.name}\n")
        with open(os.path.join(self.dir, "dbus.conf"), "w") as f:
            f.write(_DBUS_CONF.format(path=escape(self.bus_socket)))
        stub = os.path.join(self.bin_dir, "xdg-open")
        with open(stub, "w") as f:
            f.write(_XDG_OPEN.format(python=sys.executable, log=self.xdg_open_log))
        os.chmod(stub, 0o755)

    def _start_xvfb(self) -> None:
        """A private Xvfb in the host: listening only on the abstract socket of the host's
        network namespace (no TCP, no file in /tmp/.X11-unix), so its display belongs to this
        host alone. The number comes from our pid and a serial; Xvfb's lock file
        (/tmp/.X<n>-lock) makes it unique on the machine, and a taken one is skipped."""
        last = ""
        for _ in range(8):
            n = 2000 + (PID % 2000) * 16 + next(_DISPLAY_SERIAL) % 16
            proc = self.host.spawn("Xvfb", f":{n}", "-displayfd", "1", "-nolisten", "tcp",
                                   "-nolisten", "unix", "-noreset", "-screen", "0", "320x240x24",
                                   label=f"{self.host.letter}:Xvfb:{n}")
            try:
                proc.wait_line(lambda line: line.strip() == str(n), timeout=10)
            except TestbedError as e:
                last = str(e)
                proc.stop(timeout=3)
                continue
            self.xvfb, self.display = proc, f":{n}"
            return
        raise TestbedError(f"no Xvfb display for {self.name} on {self.host.ns}: {last}")

    def start(self) -> "KdeConnect":
        """Start the bus (and Xvfb), kdeconnectd and the notification monitor; return once the
        daemon answers on its bus (kdeconnect-cli --my-id prints its id) and has broadcast its
        identity. Bounded by start_timeout; kdeconnectd's exit fails it at once with its log."""
        if not self.testbed.default_route:
            raise TestbedError("kdeconnectd broadcasts its identity to 255.255.255.255, which "
                               "needs a default route: make the bed with "
                               "@pytest.mark.hosts(k, default_route=True)")
        self._prepare()
        if self.want_display:
            self._start_xvfb()
        letter = self.host.letter
        conf = os.path.join(self.dir, "dbus.conf")
        self.bus = self.host.spawn(*self._argv("dbus-daemon", "--nofork", "--print-address",
                                               "--config-file", conf), label=f"{letter}:kc-dbus")
        self.bus.wait_line(lambda line: line.startswith("unix:"), timeout=self.start_timeout)
        self.monitor = self.host.spawn(
            "busctl", f"--address={self.bus_address}", "monitor", "--json=short",
            "--match=type=method_call,interface=org.freedesktop.Notifications",
            f"--match=type=signal,interface={SHARE_IFACE},member=shareReceived",
            label=f"{letter}:kc-monitor")
        wait_until(lambda: self.monitor.proc.poll() is not None
                   or any("Monitoring" in line for line in self.monitor.err_lines),
                   timeout=self.start_timeout, what=f"busctl monitor on {self.bus_address}")
        if self.monitor.proc.poll() is not None:
            raise TestbedError("busctl monitor exited\n" + self.monitor.output())
        daemon = kdeconnectd_path()
        if daemon is None:
            raise TestbedError("kdeconnectd is not installed")
        self.proc = self.host.spawn(*self._argv(daemon), label=f"{letter}:kdeconnectd",
                                    merge_stderr=True)
        deadline = time.monotonic() + self.start_timeout

        def my_id() -> str | None:
            """Its id once kdeconnect-cli --my-id prints one (fails at once if it exited)."""
            if self.proc.proc.poll() is not None:
                raise TestbedError(f"kdeconnectd exited (rc={self.proc.proc.poll()})\n"
                                   + self.output())
            cp = self.cli("--my-id", timeout=10, check=False)
            out = cp.stdout.strip()
            return out if cp.returncode == 0 and ID_RE.fullmatch(out) else None
        try:
            self.id = wait_until(my_id, timeout=self.start_timeout, interval=0.1,
                                 what=f"kdeconnectd on {self.host.ns} to answer on its bus")
            self.wait_log(lambda line: _BROADCAST_LINE in line,
                          timeout=max(0.5, deadline - time.monotonic()))
        except TestbedError as e:
            raise TestbedError(f"{e}\n{self.output()}") from None
        announced = self.call(DAEMON_PATH, DAEMON_IFACE, "announcedName")
        if announced != self.name:
            raise TestbedError(f"kdeconnectd announces {announced!r}, not {self.name!r}\n"
                               + self.output())
        return self

    def stop(self) -> None:
        """Stop kdeconnectd, the monitor, the bus and Xvfb now; teardown does it otherwise."""
        for p in (self.proc, self.monitor, self.bus, self.xvfb):
            if p:
                p.stop(timeout=5)

    @property
    def log(self) -> list[str]:
        """kdeconnectd's log lines so far (stdout and stderr)."""
        return [line for _, line in self.proc.lines] if self.proc else []

    def wait_log(self, pred: Callable[[str], bool], timeout: float, start: int = 0) -> str:
        """The first log line (index >= start) matching pred, within timeout."""
        return self.proc.wait_line(pred, timeout, start)

    def output(self, tail: int = 60) -> str:
        """The last log lines of kdeconnectd (and of its bus), for failure messages."""
        return "\n".join(p.output(tail) for p in (self.proc, self.bus) if p)

    # -- D-Bus ---------------------------------------------------------------------------------

    def cli(self, *args: str, timeout: float = 10,
            check: bool = True) -> subprocess.CompletedProcess:
        """kdeconnect-cli *args in the host with kdeconnectd's environment (never -l before
        pairing is done: see the module doc)."""
        return self.host.run(*self._argv("kdeconnect-cli", *args), timeout=timeout, check=check)

    def busctl(self, *args: str, timeout: float = 10) -> Any:
        """`busctl --json=short *args` on its bus; the plain value(s) of the answer (None if
        there is none). A D-Bus error raises TestbedError."""
        cp = run(["busctl", f"--address={self.bus_address}", "--json=short",
                  f"--timeout={max(1, int(timeout))}", "--", *args], timeout=timeout + 5)
        out = cp.stdout.strip()
        return _plain(json.loads(out)) if out else None

    def call(self, path: str, iface: str, method: str, signature: str = "", *args: Any,
             timeout: float = 10) -> Any:
        """Call method on org.kde.kdeconnect; its one result (or the list of several, or None)."""
        got = self.busctl("call", BUS_NAME, path, iface, method,
                          *([signature, *map(_busctl_arg, args)] if signature else []),
                          timeout=timeout)
        if got is None:
            return None
        return got[0] if len(got) == 1 else got

    def device_path(self, device_id: str) -> str:
        """The D-Bus object of device_id in this daemon."""
        return f"{DAEMON_PATH}/devices/{device_id}"

    def device(self, device_id: str) -> dict | None:
        """{"id", "name", "type", "reachable", "paired", "pairing_requested"} of device_id, or
        None if this daemon has no such device (now)."""
        try:
            props = self.call(self.device_path(device_id), "org.freedesktop.DBus.Properties",
                              "GetAll", "s", DEVICE_IFACE)
        except TestbedError:
            return None
        return {"id": device_id, "name": props.get("name", ""), "type": props.get("type", ""),
                "reachable": bool(props.get("isReachable")), "paired": bool(props.get("isTrusted")),
                "pairing_requested": bool(props.get("hasPairingRequests"))}

    def devices(self, paired_only: bool = False) -> list[dict]:
        """Every device it knows (reachable ones and paired ones), as device() describes them,
        sorted by name."""
        names = self.call(DAEMON_PATH, DAEMON_IFACE, "deviceNames", "bb", False, paired_only)
        found = [self.device(i) for i in sorted(names or {})]
        return sorted((d for d in found if d), key=lambda d: (d["name"], d["id"]))

    def wait_device(self, match: str | Callable[[dict], bool], timeout: float = 15) -> dict:
        """The first device whose name or id is match (reachable, with its name known), or for
        which match(device) is true, polled until timeout."""
        if isinstance(match, str):
            def pred(d: dict) -> bool:
                """Reachable, named, and match is its name or id."""
                return d["reachable"] and bool(d["name"]) and match in (d["name"], d["id"])
        else:
            pred = match
        seen: list[list[dict]] = [[]]

        def found() -> dict | None:
            """The matching device, if listed now."""
            seen[0] = self.devices()
            return next((d for d in seen[0] if pred(d)), None)
        try:
            return wait_until(found, timeout=timeout, interval=0.1,
                              what=f"{self.name} to list device {match!r}")
        except TestbedError as e:
            raise TestbedError(f"{e}; devices: {seen[0]}\n{self.output()}") from None

    def request_pair(self, device_id: str) -> None:
        """Ask device_id to pair; it answers with accept_pair or reject_pair on its side."""
        self.call(self.device_path(device_id), DEVICE_IFACE, "requestPair")

    def accept_pair(self, device_id: str) -> None:
        """Accept device_id's pairing request."""
        self.call(self.device_path(device_id), DEVICE_IFACE, "acceptPairing")

    def reject_pair(self, device_id: str) -> None:
        """Reject device_id's pairing request."""
        self.call(self.device_path(device_id), DEVICE_IFACE, "rejectPairing")

    def unpair(self, device_id: str) -> None:
        """Forget the pairing with device_id (both sides are told)."""
        self.call(self.device_path(device_id), DEVICE_IFACE, "unpair")

    def pairing_requests(self) -> list[str]:
        """Ids of the devices whose pairing requests wait for an answer."""
        return list(self.busctl("get-property", BUS_NAME, DAEMON_PATH, DAEMON_IFACE,
                                "pairingRequests") or [])

    def wait_pair_request(self, timeout: float = 15) -> str:
        """The id of the first device asking to pair, polled until timeout."""
        got = wait_until(lambda: self.pairing_requests(), timeout=timeout, interval=0.1,
                         what=f"a pairing request at {self.name}")
        return got[0]

    def is_paired(self, device_id: str) -> bool:
        """device_id is paired (trusted) in this daemon."""
        return bool(self.call(self.device_path(device_id), DEVICE_IFACE, "isTrusted"))

    def wait_paired(self, device_id: str, timeout: float = 15) -> None:
        """Poll until device_id is paired here."""
        wait_until(lambda: self.is_paired(device_id), timeout=timeout, interval=0.1,
                   what=f"{self.name} to report {device_id} paired")

    def encryption_info(self, device_id: str) -> str:
        """The text of its "encryption info" for device_id: the SHA-256 fingerprints of its own
        certificate and of the peer's (the peer's is the hash of nothing until paired)."""
        return self.call(self.device_path(device_id), DEVICE_IFACE, "encryptionInfo")

    def verification_key(self, device_id: str) -> str:
        """The verification key of the link to device_id: 64 lowercase hex digits, the same on
        both sides; a pairing request's notification shows its first 8."""
        return bytes(self.call(self.device_path(device_id), DEVICE_IFACE,
                               "verificationKey")).decode()

    def own_fingerprint(self) -> str:
        """SHA-256 of its certificate as encryptionInfo shows it (hex pairs joined by ':')."""
        return cert_sha256(self.cert_file)

    # -- notifications -------------------------------------------------------------------------

    def bus_messages(self, interface: str, member: str) -> list[dict]:
        """The messages busctl monitor recorded on its bus with interface and member (only the
        notifications and shareReceived are watched), in order, as busctl's JSON objects."""
        out = []
        for _, line in list(self.monitor.lines) if self.monitor else []:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict) and msg.get("interface") == interface \
                    and msg.get("member") == member:
                out.append(msg)
        return out

    def notifications(self) -> list[dict]:
        """The notifications kdeconnectd asked to show, in order: {"app", "summary", "body"}."""
        out = []
        for msg in self.bus_messages("org.freedesktop.Notifications", "Notify"):
            args = (msg.get("payload") or {}).get("data") or []
            if len(args) >= 5:
                out.append({"app": args[0], "summary": args[3], "body": args[4]})
        return out

    def wait_notification(self, pred: Callable[[dict], bool], timeout: float = 15) -> dict:
        """The first notification matching pred, polled until timeout."""
        try:
            return wait_until(lambda: next((n for n in self.notifications() if pred(n)), None),
                              timeout=timeout, interval=0.05,
                              what=f"a notification at {self.name}")
        except TestbedError as e:
            raise TestbedError(f"{e}; notifications: {self.notifications()}") from None

    # -- share ---------------------------------------------------------------------------------

    def share_file(self, path: str, device_id: str) -> None:
        """Send the file at path to device_id (which must be paired); returns at once."""
        url = Path(os.path.abspath(path)).as_uri()
        self.call(f"{self.device_path(device_id)}/share", SHARE_IFACE, "shareUrl", "s", url)

    def share_text(self, text: str, device_id: str) -> None:
        """Send text to device_id (which must be paired); returns at once."""
        self.call(f"{self.device_path(device_id)}/share", SHARE_IFACE, "shareText", "s", text)

    def ping(self, device_id: str, message: str | None = None) -> None:
        """Ping device_id (with a message); the receiver shows it as a notification."""
        path = f"{self.device_path(device_id)}/ping"
        if message is None:
            self.call(path, PING_IFACE, "sendPing")
        else:
            self.call(path, PING_IFACE, "sendPing", "s", message)

    def received_files(self) -> list[str]:
        """Names of the complete files in its Downloads (not the .part ones being written)."""
        return sorted(n for n in os.listdir(self.download_dir)
                      if not n.endswith(".part")
                      and os.path.isfile(os.path.join(self.download_dir, n)))

    def wait_file(self, name: str, timeout: float = 30, size: int | None = None) -> str:
        """The path of received file name once it is complete: kdeconnectd has renamed
        <name>.part to it and announced it (shareReceived), and, if size is given, it has size
        bytes; polled until timeout."""
        path = os.path.join(self.download_dir, name)

        def done() -> str | None:
            """path, once complete."""
            if not any(s["path"] == path for s in self.shares()):
                return None
            try:
                got = os.path.getsize(path)
            except OSError:
                return None
            return path if size is None or got == size else None
        try:
            return wait_until(done, timeout=timeout, interval=0.05,
                              what=f"{name} to arrive complete at {self.name}")
        except TestbedError as e:
            raise TestbedError(f"{e}; files: {os.listdir(self.download_dir)}\n"
                               f"{self.output()}") from None

    def shares(self) -> list[dict]:
        """What it received, in order, as its share plugin announces each on its bus once it is
        complete (signal shareReceived): {"device": the sender's id, "path": the local file,
        "text": True for a shared text (a file kdeconnect-XXXXXX.txt in text_dir), False for a
        file (in download_dir)}."""
        out = []
        for msg in self.bus_messages(SHARE_IFACE, "shareReceived"):
            m = re.fullmatch(rf"{re.escape(DAEMON_PATH)}/devices/(\w+)/share", msg.get("path", ""))
            args = (msg.get("payload") or {}).get("data") or []
            if not m or not args:
                continue
            where = args[0]
            path = url2pathname(urlparse(where).path) if where.startswith("file:") else where
            out.append({"device": m.group(1), "path": path,
                        "text": os.path.dirname(path) == self.text_dir})
        return out

    def received_texts(self) -> list[str]:
        """The texts shared with it, in arrival order. kdeconnectd writes each to a file
        kdeconnect-XXXXXX.txt in its working directory (text_dir), announces it (shareReceived)
        and then opens it."""
        texts = []
        for share in self.shares():
            if share["text"]:
                with open(share["path"], encoding="utf-8", errors="replace", newline="") as f:
                    texts.append(f.read())
        return texts

    def wait_text(self, match: str | Callable[[str], bool] | None = None,
                  timeout: float = 15) -> str:
        """The first received text equal to match (or for which match(text) is true, or any if
        None), polled until timeout."""
        pred = (lambda t: True) if match is None else \
            (lambda t: t == match) if isinstance(match, str) else match
        try:
            return wait_until(lambda: next((t for t in self.received_texts() if pred(t)), None),
                              timeout=timeout, interval=0.05,
                              what=f"a shared text at {self.name}")
        except TestbedError as e:
            raise TestbedError(f"{e}; texts: {self.received_texts()!r}\n{self.output()}") from None

    def opened(self) -> list[dict]:
        """What kdeconnectd passed to xdg-open (the stub), in order: {"arg", "path", "content"}
        (content: the file's text when arg is a local file). Only under xcb: offscreen, Qt
        cannot open documents and kdeconnectd only logs a warning."""
        try:
            with open(self.xdg_open_log) as f:
                return [json.loads(line) for line in f if line.endswith("\n")]
        except FileNotFoundError:
            return []

    def wait_opened(self, pred: Callable[[dict], bool] | None = None,
                    timeout: float = 15) -> dict:
        """The first xdg-open call (for which pred is true), polled until timeout. kdeconnectd
        opens a received text after writing it, so this comes after wait_text."""
        try:
            return wait_until(lambda: next((o for o in self.opened() if not pred or pred(o)),
                                           None),
                              timeout=timeout, interval=0.05, what=f"xdg-open at {self.name}")
        except TestbedError as e:
            raise TestbedError(f"{e}; opened: {self.opened()}\n{self.output()}") from None

    # -- clipboard (display=True) --------------------------------------------------------------

    def _need_display(self) -> str:
        """Its display, or TestbedError without one."""
        if not self.display:
            raise TestbedError(f"{self.name} runs offscreen: clipboard helpers need "
                               "KdeConnect(..., display=True)")
        return self.display

    def clipboard_get(self) -> str | None:
        """The text on its display's clipboard (UTF8_STRING), or None if nobody offers one."""
        cp = self.host.run("env", f"DISPLAY={self._need_display()}", "xclip", "-selection",
                           "clipboard", "-o", "-t", "UTF8_STRING", timeout=10, check=False)
        return cp.stdout if cp.returncode == 0 else None

    def clipboard_targets(self) -> list[str]:
        """The types its display's clipboard owner offers (empty when nobody owns it)."""
        cp = self.host.run("env", f"DISPLAY={self._need_display()}", "xclip", "-selection",
                           "clipboard", "-o", "-t", "TARGETS", timeout=10, check=False)
        return cp.stdout.split() if cp.returncode == 0 else []

    def clipboard_set(self, text: str, timeout: float = 10) -> None:
        """Put text on its display's clipboard, as a user's copy would: xclip (in the host, in
        the foreground, tracked by the bed) owns the selection until someone else takes it.
        Returns once a reader on the display sees the text offered."""
        display = self._need_display()
        owner = self.host.spawn("xclip", "-quiet", "-selection", "clipboard", "-i",
                                label=f"{self.host.letter}:xclip", stdin=True,
                                env=dict(os.environ, DISPLAY=display))
        owner.proc.stdin.write(text)
        owner.proc.stdin.close()
        wait_until(lambda: self.clipboard_get() == text, timeout=timeout, interval=0.05,
                   what=f"xclip to own the clipboard on {display}")

    def wait_clipboard(self, text: str, timeout: float = 15) -> None:
        """Poll until its display's clipboard holds text."""
        last: list[str | None] = [None]

        def holds() -> bool:
            """The clipboard holds text now."""
            last[0] = self.clipboard_get()
            return last[0] == text
        try:
            wait_until(holds, timeout=timeout, interval=0.05,
                       what=f"{text!r} on {self.name}'s clipboard")
        except TestbedError as e:
            raise TestbedError(f"{e}; it holds {last[0]!r}\n{self.output()}") from None

    # -- log -----------------------------------------------------------------------------------

    def identities(self) -> list[dict]:
        """The identity packets it logged: as the side that accepts the TCP connection (the
        announcer), kdeconnectd logs each identity a peer sends it first, in plain text."""
        out = []
        for line in self.log:
            _, sep, rest = line.partition("LanLinkProvider received reply: ")
            if not sep:
                continue
            try:
                out.append(json.loads(_qdebug_bytes(rest)))
            except ValueError:
                continue
        return out


def _der_item(data: bytes, pos: int) -> tuple[int, int, int]:
    """The DER item at pos: (tag, start of its content, end of its content)."""
    tag, length = data[pos], data[pos + 1]
    pos += 2
    if length & 0x80:
        n = length & 0x7F
        length = int.from_bytes(data[pos:pos + n], "big")
        pos += n
    return tag, pos, pos + length


def public_key_der(pem_path: str) -> bytes:
    """The SubjectPublicKeyInfo (DER) of a PEM certificate: certificate SEQUENCE -> tbs
    SEQUENCE -> [0] version, serial, signature algorithm, issuer, validity, subject, SPKI."""
    with open(pem_path) as f:
        der = ssl.PEM_cert_to_DER_cert(f.read())
    _, tbs, _ = _der_item(der, 0)
    _, pos, _ = _der_item(der, tbs)
    if der[pos] == 0xA0:  # explicit version
        pos = _der_item(der, pos)[2]
    for _ in range(5):  # serial, signature, issuer, validity, subject
        pos = _der_item(der, pos)[2]
    tag, start, end = _der_item(der, pos)
    assert tag == 0x30, f"no SubjectPublicKeyInfo in {pem_path}"
    return der[pos:end]


def verification_key(cert_a: str, cert_b: str) -> str:
    """The verification key of two KDE Connect 22.12 devices, from their PEM certificates:
    SHA-256 of the larger DER SubjectPublicKeyInfo (bytewise) followed by the smaller, in
    lowercase hex; the same whichever side computes it."""
    keys = sorted((public_key_der(cert_a), public_key_der(cert_b)), reverse=True)
    return hashlib.sha256(keys[0] + keys[1]).hexdigest()


def _busctl_arg(value: Any) -> str:
    """One argument for `busctl call` (booleans as true/false)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def sha256_file(path: str) -> str:
    """SHA-256 of a file's content, lowercase hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(65536), b""):
            h.update(chunk)
    return h.hexdigest()
