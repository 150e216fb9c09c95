"""localsendd in a test host: an independent LocalSend (protocol v2.2) peer for interop tests.

localsendd is a LocalSend daemon written in Python (stdlib only, Python >= 3.11): multicast
announcements on 224.0.0.167:53317, HTTPS on port 53317 with a self-signed certificate (made with
the `openssl` binary) whose fingerprint peers pin, /register, /prepare-upload (PIN, decline, busy),
/upload (SHA-256 checked), /cancel, /prepare-download and /download. It is controlled over a unix
socket by `localsendctl`. scripts/test installs both into a venv of their own outside the
repository, `$HUDDLE_TEST_PEERS/localsendd` (default /var/cache/huddle-test-peers/localsendd):

    python3 -m venv DIR && DIR/bin/pip install -q localsendd

`Localsendd(host, alias, ...).start()` (or the `localsendd` fixture in conftest.py:
`localsendd(host, alias, **kw)`) runs `localsendd --unattended` inside host's namespace as a
LineProc started by host.spawn, so testbed teardown stops it (by its pid), with everything it
writes in its own directory under Testbed.tmpdir:

    <tmpdir>/localsendd-<letter>-<n>/
        home/              HOME (XDG_CACHE_HOME and XDG_DATA_HOME under it)
        state/localsendd/  XDG_STATE_HOME: cert.pem and key.pem (HTTPS), fingerprint (the random
                           one used without encryption), favorites.json
        config/            XDG_CONFIG_HOME; --config points at config/localsendd/config.toml,
                           which is never written, so no config file is read
        run/               XDG_RUNTIME_DIR (mode 700)
        downloads/         --download-dir: received files, written under their final name
        ctl.sock           --socket: the control socket (a plain file, so localsendctl runs from
                           outside the namespace)

Its log (stderr, --log-level debug) is collected by its LineProc (`log`, `wait_log`, `output`);
the directory goes with Testbed.tmpdir at teardown.

The host needs a default route: localsendd finds "its" address by a UDP connect to a public
address (no packet is sent) and joins the multicast group on INADDR_ANY; without a route both fail
(it then reports 127.0.0.1 and falls back to an HTTP scan of that /24). So the bed must be made with
`@pytest.mark.hosts(k, default_route=True)` (testbed.py: a route via an address on the host's own
subnet that nobody has; nothing leaves the bed). start() refuses a bed without it, and checks that
localsendd reports the host's IPv4, multicast on, the protocol asked for (without `openssl` it
would quietly serve HTTP) and, with HTTPS, a fingerprint equal to its certificate's.

start() returns once the control socket answers `status` (polled, bounded by start_timeout;
localsendd's exit fails it at once with its log). The HTTP listener is bound before the control
socket, so the peer can be reached then; announcing starts at the same moment (a burst at 0, 1
and 3 s, then every 30 s), and a peer that hears an announcement answers with POST /register.

Unattended and attended:
- unattended=True (default): localsendd accepts a transfer by itself, but only while NO control
  client is connected; a transfer that starts while one is (a localsendctl call in flight) waits
  for accept() up to 60 s. So do not poll a receiving peer's control socket while a transfer to
  it may start. The helpers that wait for a file (wait_file, received_files) read the download
  directory and /proc, never the socket.
- unattended=False: start() also runs `localsendctl watch --json` (a LineProc, `watcher`) so a
  client is always attached: an incoming transfer waits for accept() / reject()
  (wait_incoming() returns it). Without a client attached localsendd would decline (403).

Attributes: host, alias, address (the host's IPv4), port, protocol ('https' or 'http'),
fingerprint (as it announces it: with HTTPS SHA-256 of its certificate's DER in uppercase hex, 64
characters; without, a random 32-character lowercase hex), encryption, pin, unattended, dir,
download_dir, socket, cert_file, proc (its LineProc), watcher. Helpers (localsendctl, bounded):

    status() -> `status --json` (self, incoming, active, result, devices)
    devices() -> `devices --json`: dicts with alias, ip, port, protocol, fingerprint,
        deviceType, deviceModel, download. The ip is the address the peer was last heard from:
        10.x.y.z from a multicast announcement, ::ffff:10.x.y.z from an HTTP request to its
        dual-stack listener (plain_ip() takes the prefix off)
    wait_device(alias or predicate, timeout) -> the first device that matches
    send(path, to, pin=None, timeout=30) -> SendResult: kind 'sent' (ok) or the failure
        ('pin_required' 401, 'declined' 403, 'busy' 409, 'rate_limited' 429, 'unreachable',
        'peer_error', 'remote_cancelled', 'cancelled'; 'timeout' if the ctl call did not end;
        'ctl_error' if localsendctl refused, e.g. no such device), code, detail, ctl output
    accept(session=None), reject(session=None), cancel(), wait_incoming(timeout)
    received_files() -> names in download_dir; wait_file(name, timeout, size=None) -> its path
        once it exists and localsendd no longer has it open
    info() / https_info(host, address, port) -> InfoResult: GET /api/localsend/v2/info from
        inside a test host, with the fingerprint of the certificate the server presented
"""

from __future__ import annotations

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
from dataclasses import dataclass
from typing import Callable

from testbed import Host, LineProc, TestbedError, wait_until

DEFAULT_PEERS_DIR = "/var/cache/huddle-test-peers"
PORT = 53317
MULTICAST_GROUP = "224.0.0.167"
FINGERPRINT_RE = re.compile(r"[0-9A-F]{64}")
_SERIAL = itertools.count(1)
# Environment variables localsendd and localsendctl read instead of their options or files.
_THEIR_ENV = ("LOCALSEND_ALIAS", "LOCALSEND_PIN", "LOCALSENDD_SOCKET")


def peers_dir() -> str:
    """Where scripts/test installs the test peers: $HUDDLE_TEST_PEERS, else the default."""
    return os.environ.get("HUDDLE_TEST_PEERS") or DEFAULT_PEERS_DIR


def localsendd_bin(name: str = "localsendd") -> str:
    """Path of localsendd's (or localsendctl's) entry point in its venv."""
    return os.path.join(peers_dir(), "localsendd", "bin", name)


def localsendd_unavailable() -> str | None:
    """None if localsendd can run here, else why not (for skip_or_fail)."""
    for name in ("localsendd", "localsendctl"):
        if not os.access(localsendd_bin(name), os.X_OK):
            return (f"{name} is not installed in {os.path.join(peers_dir(), 'localsendd')} "
                    "(scripts/test installs it there when run as root; HUDDLE_TEST_PEERS names "
                    f"the parent directory, default {DEFAULT_PEERS_DIR})")
    if not shutil.which("openssl"):
        return "openssl not found: localsendd makes its HTTPS certificate with it"
    return None


def plain_ip(ip: str) -> str:
    """An IPv4-mapped IPv6 address (::ffff:10.1.2.3) as plain IPv4; anything else unchanged."""
    prefix = "::ffff:"
    rest = ip[len(prefix):] if ip.lower().startswith(prefix) else ""
    return rest if re.fullmatch(r"\d+\.\d+\.\d+\.\d+", rest) else ip


def cert_fingerprint(pem_path: str) -> str:
    """SHA-256 of a PEM certificate's DER form, uppercase hex (LocalSend's fingerprint)."""
    with open(pem_path) as f:
        der = ssl.PEM_cert_to_DER_cert(f.read())
    return hashlib.sha256(der).hexdigest().upper()


@dataclass
class SendResult:
    """How one `localsendctl send --wait` ended: kind 'sent' or the failure (module doc), the
    HTTP status behind it (code, e.g. 401 for 'pin_required'), localsendd's detail text, the ctl's
    exit code (None on timeout) and what it printed."""
    kind: str
    code: int | None
    detail: str | None
    rc: int | None
    output: str

    @property
    def ok(self) -> bool:
        """The file(s) arrived (the receiver answered every upload)."""
        return self.kind == "sent"


@dataclass
class InfoResult:
    """One GET /api/localsend/v2/info: HTTP status, the JSON body (None if it is not an object),
    the raw body, and the SHA-256 (uppercase hex) of the certificate the server presented (None
    over http)."""
    status: int
    info: dict | None
    body: str
    cert_fingerprint: str | None


_INFO_SCRIPT = r"""
import hashlib, http.client, json, ssl, sys
address, port, scheme, timeout = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
if scheme == "https":
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    conn = http.client.HTTPSConnection(address, port, timeout=timeout, context=ctx)
else:
    conn = http.client.HTTPConnection(address, port, timeout=timeout)
conn.connect()
der = conn.sock.getpeercert(binary_form=True) if scheme == "https" else None
conn.request("GET", "/api/localsend/v2/info")
resp = conn.getresponse()
body = resp.read().decode("utf-8", "replace")
print(json.dumps({"status": resp.status, "body": body,
                  "cert": hashlib.sha256(der).hexdigest().upper() if der else None}))
"""


def https_info(host: Host, address: str, port: int = PORT, *, scheme: str = "https",
               timeout: float = 5) -> InfoResult:
    """GET /api/localsend/v2/info of the LocalSend peer at address:port from inside host (python,
    any certificate accepted; scheme='http' for a peer without encryption). No answer at all
    raises TestbedError."""
    assert scheme in ("https", "http"), scheme
    cp = host.run(sys.executable, "-c", _INFO_SCRIPT, address, str(port), scheme, str(timeout),
                  timeout=timeout + 5, check=False)
    if cp.returncode != 0:
        raise TestbedError(f"GET {scheme}://{address}:{port}/api/localsend/v2/info from {host.ns} "
                           f"failed (rc={cp.returncode}):\n{cp.stdout}{cp.stderr}")
    got = json.loads(cp.stdout)
    try:
        info = json.loads(got["body"])
    except ValueError:
        info = None
    return InfoResult(got["status"], info if isinstance(info, dict) else None, got["body"],
                      got["cert"])


class Localsendd:
    """localsendd in a test host, driven by localsendctl; see the module doc."""

    def __init__(self, host: Host, alias: str, *, encryption: bool = True,
                 pin: str | int | None = None, unattended: bool = True, port: int = PORT,
                 device_type: str | None = None, start_timeout: float = 15,
                 log_level: str = "debug"):
        self.host, self.testbed = host, host.testbed
        self.alias, self.encryption = alias, encryption
        self.unattended, self.port = unattended, port
        self.pin = None if pin is None else str(pin)
        self.device_type, self.start_timeout, self.log_level = device_type, start_timeout, log_level
        self.address = host.ipv4
        self.protocol = "https" if encryption else "http"
        n = next(_SERIAL)
        self.dir = os.path.join(self.testbed.tmpdir, f"localsendd-{host.letter}-{n}")
        self.home = os.path.join(self.dir, "home")
        self.state_home = os.path.join(self.dir, "state")
        self.config_home = os.path.join(self.dir, "config")
        self.runtime_dir = os.path.join(self.dir, "run")
        self.download_dir = os.path.join(self.dir, "downloads")
        self.socket = os.path.join(self.dir, "ctl.sock")
        self.config_file = os.path.join(self.config_home, "localsendd", "config.toml")
        self.cert_file = os.path.join(self.state_home, "localsendd", "cert.pem")
        self.fingerprint = ""
        self.proc: LineProc | None = None
        self.watcher: LineProc | None = None

    def __repr__(self) -> str:
        return (f"Localsendd({self.alias!r} on {self.host.ns}, "
                f"{self.protocol}://{self.address}:{self.port})")

    # -- process -------------------------------------------------------------------------------

    def _env(self) -> dict[str, str]:
        """Our environment without localsendd's own variables, with HOME and XDG dirs in dir."""
        env = {k: v for k, v in os.environ.items() if k not in _THEIR_ENV}
        env.update(HOME=self.home, XDG_STATE_HOME=self.state_home,
                   XDG_CONFIG_HOME=self.config_home, XDG_RUNTIME_DIR=self.runtime_dir,
                   XDG_CACHE_HOME=os.path.join(self.home, ".cache"),
                   XDG_DATA_HOME=os.path.join(self.home, ".local", "share"),
                   PYTHONUNBUFFERED="1")
        return env

    def argv(self) -> list[str]:
        """localsendd's command line."""
        argv = [localsendd_bin(), "--alias", self.alias, "--port", str(self.port),
                "--download-dir", self.download_dir, "--socket", self.socket,
                "--config", self.config_file, "--log-level", self.log_level,
                "--encryption" if self.encryption else "--no-encryption",
                "--unattended" if self.unattended else "--no-unattended"]
        if self.pin is not None:
            argv += ["--pin", self.pin]
        if self.device_type:
            argv += ["--device-type", self.device_type]
        return argv

    def start(self) -> "Localsendd":
        """Make its directories, start localsendd in the host, wait (bounded) until its control
        socket answers `status`, and check what it reports (module doc)."""
        reason = localsendd_unavailable()
        if reason:
            raise TestbedError(reason)
        if not self.testbed.default_route:
            raise TestbedError("localsendd needs a default route in its host: mark the test "
                               "@pytest.mark.hosts(k, default_route=True)")
        if len(self.socket.encode()) > 100:
            raise TestbedError(f"control socket path too long for AF_UNIX: {self.socket}")
        for d in (self.home, self.state_home, self.config_home, self.download_dir):
            os.makedirs(d, mode=0o700)
        os.makedirs(self.runtime_dir, mode=0o700)
        self.proc = self.host.spawn(*self.argv(), label=f"{self.host.letter}:localsendd",
                                    merge_stderr=True, env=self._env())

        def answers() -> dict | None:
            """`status --json` once the socket answers (fails fast if localsendd exited)."""
            if self.proc.proc.poll() is not None:
                raise TestbedError(f"localsendd exited (rc={self.proc.proc.returncode})")
            if not os.path.exists(self.socket):
                return None
            cp = self.ctl("status", "--json", check=False, timeout=5)
            return json.loads(cp.stdout) if cp.returncode == 0 else None
        try:
            st = wait_until(answers, timeout=self.start_timeout, interval=0.05,
                            what=f"localsendd on {self.host.ns} to answer on {self.socket}")
        except TestbedError as e:
            raise TestbedError(f"{e}\n{self.output()}") from None
        me = st["self"]
        self.fingerprint = me["fingerprint"]
        want = {"alias": self.alias, "port": self.port, "protocol": self.protocol,
                "localIp": self.address, "multicast": True, "pinRequired": self.pin is not None,
                "unattended": self.unattended, "downloadDir": self.download_dir}
        got = {k: me.get(k) for k in want}
        if got != want:
            raise TestbedError(f"localsendd reports {got}, expected {want}\n{self.output()}")
        if self.encryption and self.fingerprint != cert_fingerprint(self.cert_file):
            raise TestbedError(f"localsendd announces {self.fingerprint}, its certificate is "
                               f"{cert_fingerprint(self.cert_file)}")
        if not self.unattended:
            self.watcher = self.host.spawn(localsendd_bin("localsendctl"), "--socket",
                                           self.socket, "watch", "--json",
                                           label=f"{self.host.letter}:lsctl-watch",
                                           env=self._ctl_env())
            self.watcher.wait_event(lambda f: f.get("type") == "state", self.start_timeout)
        return self

    def stop(self) -> int:
        """Stop localsendd (and the watcher) now; teardown does it otherwise. Its exit code."""
        if self.watcher:
            self.watcher.stop(timeout=5)
        return self.proc.stop(timeout=5) if self.proc else 0

    @property
    def log(self) -> list[str]:
        """localsendd's log lines so far."""
        return [line for _, line in self.proc.lines] if self.proc else []

    def wait_log(self, pred: Callable[[str], bool], timeout: float, start: int = 0) -> str:
        """The first log line (index >= start) matching pred, within timeout."""
        return self.proc.wait_line(pred, timeout, start)

    def output(self, tail: int = 60) -> str:
        """The last log lines (and the watcher's), for failure messages."""
        parts = [p.output(tail) for p in (self.proc, self.watcher) if p]
        return "\n".join(parts)

    # -- control -------------------------------------------------------------------------------

    def _ctl_env(self) -> dict[str, str]:
        """localsendctl's environment: ours without localsendd's variables."""
        return {k: v for k, v in os.environ.items() if k not in _THEIR_ENV}

    def ctl(self, *args: str, timeout: float = 10,
            check: bool = True) -> subprocess.CompletedProcess:
        """Run `localsendctl --socket <socket> *args` (outside the namespace: the socket is a
        file) to completion, bounded; check=True raises TestbedError unless it exits 0."""
        argv = [localsendd_bin("localsendctl"), "--socket", self.socket, *args]
        try:
            cp = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                                env=self._ctl_env(), errors="replace")
        except subprocess.TimeoutExpired as e:
            raise TestbedError(f"timed out after {timeout}s: {' '.join(argv)}") from e
        if check and cp.returncode != 0:
            raise TestbedError(f"{' '.join(argv)} -> rc={cp.returncode}\n{cp.stdout}{cp.stderr}")
        return cp

    def status(self) -> dict:
        """`localsendctl status --json`: self, incoming, active, result, devices."""
        return json.loads(self.ctl("status", "--json").stdout)

    def devices(self) -> list[dict]:
        """`localsendctl devices --json`: the peers it knows (module doc)."""
        return json.loads(self.ctl("devices", "--json").stdout)

    def wait_device(self, match: str | Callable[[dict], bool], timeout: float = 10) -> dict:
        """The first device (from devices()) whose alias is match, or for which match(device) is
        true, polled until timeout."""
        pred = (lambda d: d.get("alias") == match) if isinstance(match, str) else match
        seen: list[list[dict]] = [[]]

        def found() -> dict | None:
            """The matching device, if listed now."""
            seen[0] = self.devices()
            return next((d for d in seen[0] if pred(d)), None)
        try:
            return wait_until(found, timeout=timeout, interval=0.1,
                              what=f"{self.alias} to list device {match!r}")
        except TestbedError as e:
            raise TestbedError(f"{e}; devices: {seen[0]}\n{self.output()}") from None

    def send(self, path: str, to: str, pin: str | int | None = None,
             timeout: float = 30) -> SendResult:
        """Send the file at path to device `to` (alias, IP or fingerprint as localsendd knows it)
        and wait until it ends (`localsendctl send --wait`), bounded by timeout (then the send is
        cancelled and the kind is 'timeout')."""
        argv = ["send", os.path.abspath(path), "--to", to, "--wait", "--quiet"]
        if pin is not None:
            argv += ["--pin", str(pin)]
        started = time.time()
        try:
            cp = self.ctl(*argv, timeout=timeout, check=False)
        except TestbedError as e:
            self.ctl("cancel", check=False)
            return SendResult("timeout", None, str(e), None, str(e))
        out = cp.stdout + cp.stderr
        m = re.search(r"^Last result: (\S+) \(", cp.stdout, re.M)
        if not m:
            return SendResult("ctl_error", None, (cp.stderr or cp.stdout).strip(), cp.returncode,
                              out)
        kind, code, detail = m.group(1), None, None
        result = self.status().get("result") or {}
        if result.get("kind") == kind and (result.get("at") or 0) >= started - 1:
            code, detail = result.get("code"), result.get("detail")
        return SendResult(kind, code, detail, cp.returncode, out)

    def wait_incoming(self, timeout: float = 10) -> dict:
        """The transfer waiting for accept()/reject() (sessionId, from, files, ...); needs
        unattended=False."""
        if self.unattended:
            raise TestbedError("wait_incoming needs Localsendd(unattended=False): unattended, "
                               "localsendd answers by itself")
        return wait_until(lambda: self.status().get("incoming"), timeout=timeout, interval=0.1,
                          what=f"an incoming transfer at {self.alias}")

    def accept(self, session: str | None = None) -> str:
        """Accept the incoming transfer (default: the pending one); localsendctl's output."""
        return self.ctl("accept", *([session] if session else [])).stdout.strip()

    def reject(self, session: str | None = None) -> str:
        """Decline the incoming transfer (default: the pending one); localsendctl's output."""
        return self.ctl("reject", *([session] if session else [])).stdout.strip()

    def cancel(self) -> str | None:
        """Cancel the transfer in progress: 'send', 'recv' or None if there was none."""
        out = self.ctl("cancel").stdout.strip()
        m = re.fullmatch(r"Cancelled (\w+)\.", out)
        return m.group(1) if m else None

    def info(self) -> InfoResult:
        """Its /api/localsend/v2/info, fetched from inside its own host."""
        return https_info(self.host, self.address, self.port, scheme=self.protocol)

    # -- received files ------------------------------------------------------------------------

    def received_files(self) -> list[str]:
        """Names of the files in its download directory (complete or not), sorted."""
        return sorted(n for n in os.listdir(self.download_dir)
                      if os.path.isfile(os.path.join(self.download_dir, n)))

    def _has_open(self, path: str) -> bool:
        """localsendd has path open (it writes a received file under its final name)."""
        fd_dir = f"/proc/{self.proc.pid}/fd"
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            return False
        for fd in fds:
            try:
                if os.readlink(os.path.join(fd_dir, fd)) == path:
                    return True
            except OSError:
                continue
        return False

    def wait_file(self, name: str, timeout: float = 30, size: int | None = None) -> str:
        """The path of received file name once it exists, localsendd has closed it and (if
        given) it has size bytes; polled until timeout, without the control socket."""
        path = os.path.realpath(os.path.join(self.download_dir, name))

        def done() -> str | None:
            """path, once complete."""
            try:
                got = os.path.getsize(path)
            except OSError:
                return None
            if self._has_open(path) or (size is not None and got != size):
                return None
            return path
        try:
            return wait_until(done, timeout=timeout, interval=0.05,
                              what=f"{name} to arrive complete at {self.alias}")
        except TestbedError as e:
            raise TestbedError(f"{e}; files: {self.received_files()}\n{self.output()}") from None


def sha256_file(path: str) -> str:
    """SHA-256 of a file's content, lowercase hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(65536), b""):
            h.update(chunk)
    return h.hexdigest()
