"""The `localsend` Python package (v0.1.2, LocalSend protocol v2.1) in a test host: a second
LocalSend implementation, independent of Huddle and of localsendd (localsend_peer.py).

The package is an asyncio library (a Starlette app under uvicorn for the HTTP API, multicast with
multicast_expert, an httpx client) plus a small CLI. It needs Python >= 3.12 (Debian 12's python3
is 3.11), so scripts/test --full installs it, as root, into a venv made with a Python 3.12 it finds
on the machine, outside the repository: `$HUDDLE_TEST_PEERS/localsend` (default
/var/cache/huddle-test-peers/localsend, beside localsendd):

    python3.12 -m venv DIR && DIR/bin/pip install 'localsend[cli]==0.1.2' uvloop

(uvloop: its server asks uvicorn for that loop). Without it the tests that use it skip with the
reason (fail with CI=true, like every other peer: conftest.py).

It is driven by our own script, peers/localsend_second.py, run with the venv's python (its
docstring lists the JSON lines it prints):

- `LocalsendSecond(host, alias, ...).start()` (or the `localsend_second` fixture in conftest.py:
  `localsend_second(host, alias, **kw)`) runs its receive mode inside host's namespace as a
  LineProc started by host.spawn (testbed teardown stops it by its pid): the package's server on
  port 53317 (HTTPS with a self-signed RSA certificate whose SHA-256, uppercase hex, is its
  fingerprint; plain HTTP with encryption=False), one multicast announcement at start, a POST
  /register answering every multicast message it hears, and an accept callback that takes every
  offered file into download_dir (or, with decline=True, none: the package then answers 403).
- `peer.send(address, files=(), text=None, ...)` runs the one-shot sender in the same host with
  the same identity (alias, certificate): GET /v2/info of the target, then the package's Uploader.
  It returns a SendOutcome once the script has ended (bounded).

Everything it writes is in its own directory under Testbed.tmpdir:

    <tmpdir>/localsend-py-<letter>-<n>/
        home/       HOME
        state/      XDG_STATE_HOME; state/com.floriand.LocalSend/ holds its RSA key
                    (rsa_private_key.pem), its certificate (x509_certificate.pem) or, without
                    encryption, its random fingerprint (fingerprint.txt)
        config/ cache/ data/   the other XDG directories (nothing is read from config/)
        run/        XDG_RUNTIME_DIR (mode 700): the key and certificate files handed to uvicorn
        downloads/  received files: written as .NAME.part, renamed to NAME once complete

Like localsendd, the package needs a default route in its host: it picks the interface for
multicast as the one of the default gateway and fails at start without one. So the bed must be
made with `@pytest.mark.hosts(k, default_route=True)` (testbed.py; nothing leaves the bed).

Attributes: host, alias, address, port, protocol, encryption, fingerprint (as it announces it),
version ('2.1'), dir, download_dir, cert_file, proc. Helpers (all bounded):

    devices() -> the latest 'device' event per fingerprint: the devices it heard of (multicast
        message or POST /register), each with host, alias, fingerprint, port, protocol, version,
        deviceModel, deviceType, announce
    wait_device(alias or predicate, timeout, start=0) -> the first such event that matches
    device_events(alias) -> every 'device' event of that alias, in order
    wait_device_events(alias, count, timeout, announce=None) -> them, once there are count
    wait_offer(predicate or file name, timeout) -> an 'offer' event (host, from, fromFingerprint,
        fileName, size, fileType, sha256, preview, accepted)
    wait_received(name, timeout) -> the 'received' event (path, size, sha256) of that file
    received_files() -> complete files in download_dir, sorted
    log_messages() -> the package's own log lines so far
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import os
import re
import ssl
import subprocess
from dataclasses import dataclass, field
from typing import Callable

from localsend_peer import PORT, peers_dir, sha256_file  # noqa: F401 - sha256_file is used by its tests
from testbed import Host, LineProc, TestbedError, wait_until

VERSION = "0.1.2"
HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "peers", "localsend_second.py")
APP_DIR = "com.floriand.LocalSend"  # the package's directory name under each XDG directory
FINGERPRINT_RE = re.compile(r"[0-9A-F]{64}")
_SERIAL = itertools.count(1)
# Variables the package or its HTTP client would read: its configuration (the script builds its
# own), and proxies (httpx honours them; every request must go straight to the test host).
_DROP_ENV = re.compile(r"LOCALSEND_.*|(?i:(http|https|all|no)_proxy)")


def venv_dir() -> str:
    """The package's venv: $HUDDLE_TEST_PEERS/localsend (default under the localsendd one)."""
    return os.path.join(peers_dir(), "localsend")


def venv_python() -> str:
    """The venv's python (3.12)."""
    return os.path.join(venv_dir(), "bin", "python")


@functools.lru_cache(maxsize=1)
def localsend_second_unavailable() -> str | None:
    """None if the package can run here, else why not (for skip_or_fail)."""
    python = venv_python()
    if not os.access(python, os.X_OK):
        return (f"the localsend package (v{VERSION}, needs Python >= 3.12) is not installed: no "
                f"venv at {venv_dir()} (scripts/test --full makes it there as root with a "
                "python3.12 it finds; HUDDLE_TEST_PEERS names the parent directory)")
    probe = ("import sys, importlib.metadata as m, localsend, uvloop; "
             "print(sys.version_info[:2] >= (3, 12), m.version('localsend'))")
    try:
        cp = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return f"{python} did not answer within 60 s"
    if cp.returncode != 0:
        return (f"the localsend package does not import in {venv_dir()} (rc={cp.returncode}): "
                f"{cp.stderr.strip().splitlines()[-1:]}; scripts/test --full reinstalls it")
    new_enough, version = cp.stdout.split()
    if new_enough != "True":
        return f"{python} is older than Python 3.12"
    if version != VERSION:
        return f"the localsend package in {venv_dir()} is {version}, these tests expect {VERSION}"
    return None


def cert_fingerprint(pem_path: str) -> str:
    """SHA-256 of a PEM certificate's DER form, uppercase hex."""
    with open(pem_path) as f:
        return hashlib.sha256(ssl.PEM_cert_to_DER_cert(f.read())).hexdigest().upper()


@dataclass
class SendOutcome:
    """How one run of the one-shot sender ended: result ('sent', 'shown' for a text the receiver
    only showed (204), 'declined' (403), 'failed', 'skipped' when the package's Uploader sent
    nothing, 'timeout' when the script did not end in time), the HTTP status behind it, the
    error text, the script's exit code (None on timeout), its JSON events and its output."""
    result: str
    status: int | None
    error: str | None
    rc: int | None
    events: list[dict] = field(repr=False)
    output: str = field(repr=False)

    @property
    def ok(self) -> bool:
        """The receiver took every file (or showed the text)."""
        return self.result in ("sent", "shown") and self.rc == 0

    def of(self, event: str) -> list[dict]:
        """The events of one kind, in order."""
        return [e for e in self.events if e.get("event") == event]


class LocalsendSecond:
    """The `localsend` package in a test host; see the module doc."""

    def __init__(self, host: Host, alias: str, *, encryption: bool = True, port: int = PORT,
                 decline: bool = False, start_timeout: float = 30):
        self.host, self.testbed = host, host.testbed
        self.alias, self.encryption, self.port = alias, encryption, port
        self.decline, self.start_timeout = decline, start_timeout
        self.address = host.ipv4
        self.protocol = "https" if encryption else "http"
        self.version = ""
        self.fingerprint = ""
        n = next(_SERIAL)
        self.dir = os.path.join(self.testbed.tmpdir, f"localsend-py-{host.letter}-{n}")
        self.home = os.path.join(self.dir, "home")
        self.download_dir = os.path.join(self.dir, "downloads")
        self.runtime_dir = os.path.join(self.dir, "run")
        self.cert_file = os.path.join(self.dir, "state", APP_DIR, "x509_certificate.pem")
        self.proc: LineProc | None = None
        self._sends = itertools.count(1)
        os.makedirs(self.home, mode=0o700)
        os.makedirs(self.download_dir, mode=0o700)
        os.makedirs(self.runtime_dir, mode=0o700)
        for sub in ("state", "config", "cache", "data"):
            os.makedirs(os.path.join(self.dir, sub), mode=0o700)

    def __repr__(self) -> str:
        return (f"LocalsendSecond({self.alias!r} on {self.host.ns}, "
                f"{self.protocol}://{self.address}:{self.port})")

    def _env(self) -> dict[str, str]:
        """Ours without the package's and the proxies' variables, HOME and XDG dirs in dir."""
        env = {k: v for k, v in os.environ.items() if not _DROP_ENV.fullmatch(k)}
        env.update(HOME=self.home, XDG_STATE_HOME=os.path.join(self.dir, "state"),
                   XDG_CONFIG_HOME=os.path.join(self.dir, "config"),
                   XDG_CACHE_HOME=os.path.join(self.dir, "cache"),
                   XDG_DATA_HOME=os.path.join(self.dir, "data"),
                   XDG_RUNTIME_DIR=self.runtime_dir, PYTHONUNBUFFERED="1",
                   PYTHONDONTWRITEBYTECODE="1")
        return env

    def _check_runnable(self) -> None:
        reason = localsend_second_unavailable()
        if reason:
            raise TestbedError(reason)
        if not self.testbed.default_route:
            raise TestbedError("the localsend package needs a default route in its host: mark "
                               "the test @pytest.mark.hosts(k, default_route=True)")

    # -- receive mode ------------------------------------------------------------------------

    def start(self) -> "LocalsendSecond":
        """Start the receive mode in the host, wait (bounded) until its port answers, and check
        what it reports: alias, port, protocol, version 2.1 and, with HTTPS, a fingerprint equal
        to its certificate's."""
        self._check_runnable()
        argv = [venv_python(), SCRIPT, "receive", "--alias", self.alias, "--dir",
                self.download_dir, "--port", str(self.port)]
        if not self.encryption:
            argv.append("--http")
        if self.decline:
            argv.append("--decline")
        self.proc = self.host.spawn(*argv, label=f"{self.host.letter}:localsend-py",
                                    env=self._env())
        try:
            ready = self.proc.wait_event(lambda e: e.get("event") == "ready", self.start_timeout)
        except TestbedError as e:
            raise TestbedError(f"the localsend package did not start in {self.host.ns}: {e}") \
                from None
        self.fingerprint, self.version = ready["fingerprint"], ready["version"]
        want = {"alias": self.alias, "port": self.port, "protocol": self.protocol,
                "version": "2.1"}
        got = {k: ready.get(k) for k in want}
        if got != want:
            raise TestbedError(f"the localsend package reports {got}, expected {want}\n"
                               f"{self.output()}")
        if self.encryption and self.fingerprint != cert_fingerprint(self.cert_file):
            raise TestbedError(f"it announces {self.fingerprint}, its certificate is "
                               f"{cert_fingerprint(self.cert_file)}")
        return self

    def stop(self) -> int:
        """Stop the receive mode now (teardown does it otherwise); its exit code."""
        return self.proc.stop(timeout=5) if self.proc else 0

    def output(self, tail: int = 60) -> str:
        """The last lines it printed, for failure messages."""
        return self.proc.output(tail) if self.proc else "(not started)"

    def _events(self, kind: str, start: int = 0) -> list[dict]:
        return [e for e in self.proc.events(start) if e.get("event") == kind]

    def log_messages(self) -> list[str]:
        """The package's own log lines so far."""
        return [e["message"] for e in self._events("log")]

    def devices(self) -> list[dict]:
        """The devices it heard of: the latest 'device' event of each fingerprint."""
        latest: dict[str, dict] = {}
        for e in self._events("device"):
            latest[e["fingerprint"]] = e
        return list(latest.values())

    def device_events(self, alias: str) -> list[dict]:
        """Every 'device' event of alias, in order."""
        return [e for e in self._events("device") if e.get("alias") == alias]

    def wait_device_events(self, alias: str, count: int, timeout: float = 15,
                           announce: bool | None = None) -> list[dict]:
        """The 'device' events of alias (only those with that announce flag, if given) once
        there are at least count of them."""
        def enough() -> list[dict] | None:
            got = [e for e in self.device_events(alias)
                   if announce is None or e.get("announce") is announce]
            return got if len(got) >= count else None
        try:
            return wait_until(enough, timeout=timeout, interval=0.1,
                              what=f"{count} device events of {alias} at {self.alias}")
        except TestbedError as e:
            raise TestbedError(f"{e}\n{self.output()}") from None

    def wait_device(self, match: str | Callable[[dict], bool], timeout: float = 15,
                    start: int = 0) -> dict:
        """The first 'device' event (line index >= start) whose alias is match, or for which
        match(event) is true."""
        pred = (lambda e: e.get("alias") == match) if isinstance(match, str) else match
        try:
            return self.proc.wait_event(lambda e: e.get("event") == "device" and pred(e),
                                        timeout, start)
        except TestbedError as e:
            raise TestbedError(f"{self.alias} did not hear of {match!r}: {e}") from None

    def wait_offer(self, match: str | Callable[[dict], bool], timeout: float = 30,
                   start: int = 0) -> dict:
        """The first 'offer' event for file name match, or for which match(event) is true."""
        pred = (lambda e: e.get("fileName") == match) if isinstance(match, str) else match
        return self.proc.wait_event(lambda e: e.get("event") == "offer" and pred(e), timeout,
                                    start)

    def wait_received(self, name: str, timeout: float = 30) -> dict:
        """The 'received' event of file name (it is complete under its name then); a 'failed'
        one for it fails at once."""
        got = self.proc.wait_event(lambda e: e.get("event") in ("received", "failed")
                                   and e.get("fileName") == name, timeout)
        if got["event"] == "failed":
            raise TestbedError(f"{name} failed at {self.alias}: {got['error']}\n{self.output()}")
        return got

    def received_files(self) -> list[str]:
        """Complete files in download_dir (not the .part ones), sorted."""
        return sorted(n for n in os.listdir(self.download_dir)
                      if not n.endswith(".part") and
                      os.path.isfile(os.path.join(self.download_dir, n)))

    # -- the one-shot sender -----------------------------------------------------------------

    def send(self, address: str, files: tuple[str, ...] | list[str] = (), text: str | None = None,
             *, port: int = PORT, http: bool = False, check_device: bool = True,
             sha256: bool = False, wrong_sha256: bool = False, text_name: str = "message.txt",
             timeout: float = 60) -> SendOutcome:
        """Send files (paths) or a text to the LocalSend device at address:port from this host,
        as this device (its alias and certificate), with the package's client; bounded by
        timeout. check_device=False skips the package's /api/localsend/v1/info check (a
        receiver without that endpoint, such as localsendd, makes the Uploader give up
        silently otherwise). sha256=True gives each file's SHA-256 in the offer, wrong_sha256=True
        one that is not the file's (files only)."""
        self._check_runnable()
        argv = [venv_python(), SCRIPT, "send", "--to", address, "--port", str(port),
                "--alias", self.alias, *[os.path.abspath(p) for p in files]]
        if text is not None:
            argv += ["--text", text, "--name", text_name]
        if http:
            argv.append("--http")
        if not check_device:
            argv.append("--no-check-device")
        if sha256:
            argv.append("--sha256")
        if wrong_sha256:
            argv.append("--wrong-sha256")
        label = f"{self.host.letter}:localsend-send-{next(self._sends)}"
        proc = self.host.spawn(*argv, label=label, env=self._env())
        rc = proc.wait_exit(timeout)
        if rc is None:
            proc.stop(timeout=5)
            return SendOutcome("timeout", None, f"did not end within {timeout}s", None,
                               proc.events(), proc.output())
        done = _last(proc, "done")
        if done is None:
            return SendOutcome("failed", None, "no 'done' line", rc, proc.events(), proc.output())
        return SendOutcome(done["result"], done.get("status"), done.get("error"), rc,
                           proc.events(), proc.output())


def _last(proc: LineProc, kind: str) -> dict | None:
    """The last event of one kind a finished LineProc printed (its reader may still be draining
    the pipe: bounded wait for EOF first)."""
    try:
        proc.wait_line(lambda _: False, 5)
    except TestbedError:
        pass
    found = [e for e in proc.events() if e.get("event") == kind]
    return found[-1] if found else None



