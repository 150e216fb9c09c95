"""Headless Chromium in a test host, driven over the Chrome DevTools Protocol (CDP), for tests of
web pages that a device without any app opens in a browser.

Chromium is Debian's `chromium` package; the protocol is spoken with `websocket-client` (import
name `websocket`). scripts/test installs both in the full run (`--full`, as root):
`apt-get install --no-install-recommends chromium` and `pip install websocket-client`.

`HeadlessChromium(host).start()` (or the `chromium` fixture in conftest.py: `chromium(host)`)
runs the browser inside host's namespace as a LineProc started by host.spawn, so testbed teardown
stops it (by its pid, then whatever is left in the namespace), with everything it writes in its
own directory under Testbed.tmpdir:

    <tmpdir>/chromium-<letter>-<n>/
        profile/     --user-data-dir (DevToolsActivePort: the port it picked and its browser path)
        downloads/   where downloads land (allow_downloads), under the names Chromium gives them
        home/        HOME, the XDG directories (caches, fontconfig) and TMPDIR
        run/         XDG_RUNTIME_DIR (mode 700)

It runs `/usr/lib/chromium/chromium`, the browser itself, not Debian's /usr/bin/chromium launcher
script: the launcher sources /etc/chromium.d, which exports Debian's API keys for Google's
services, turns --enable-remote-extensions on (and with it drops the launcher's own
--disable-background-networking), loads the extensions in /usr/share/chromium/extensions and
checks /dev/shm with a test that breaks when findmnt reports two mounts. Elsewhere (no such file)
`chromium` on PATH is run. The flags (`chromium_argv`): --headless=new --no-sandbox (we are root)
--disable-gpu, --remote-debugging-port (0 by default: Chromium picks a free port and writes it to
profile/DevToolsActivePort, so two browsers in one host never collide), --user-data-dir, and
everything that keeps it quiet and at home: no first run, no default-browser check, no background
networking, component updates, sync, extensions, default apps, domain reliability, phishing
detection, crash reports, pings or proxy, metrics only recorded, password store basic (no keyring
over D-Bus), the features that fetch things (translate, optimization hints, the media router and
its DIAL/mDNS discovery) disabled, log level fatal, and `--host-resolver-rules=MAP * ~NOTFOUND,
EXCLUDE localhost, EXCLUDE <loopback and the bed's addresses as patterns, 10.x.y.*, fd00:n:*>`: no
host name resolves and no DNS query is sent (even with every flag above, Chromium looks up Google's
account and update servers at start when it may), and an address outside the bed does not load
(the rules apply to IP literals too). So pages are opened by address; resolve_names=True lifts the
rules. What is left: now and then a UDP connect to a public IPv6 address (Chromium's IPv6
reachability probe), which sends nothing and fails without an IPv6 route. Its environment has HOME,
XDG_* and TMPDIR in its directory, D-Bus addresses that lead nowhere, and no proxy, DISPLAY or
GOOGLE_*.

The DevTools endpoint listens on 127.0.0.1 inside the host's namespace, which the test process
is not in: every connection to it is a socket made in that namespace by a short-lived thread that
setns(2)s into it (`connect_in`), so the protocol's traffic stays on that host's loopback and no
helper process is needed. start() returns once /json/version answers and a page target (the
about:blank tab) is attached (bounded by start_timeout; Chromium's exit fails it at once with its
log). All commands then go over that page target's websocket, with Page, Runtime, Log and Network
enabled and lifecycle events on.

The API (every wait bounded):

    navigate(url, timeout=30) -> the document's HTTP status (None for about: or a change of
        fragment only; a data: URL is 200); waits for the page's load event; a failed navigation
        raises BrowserError with Chromium's error (net::ERR_CONNECTION_REFUSED, ...)
    evaluate(js, timeout=10) -> the expression's value as JSON (a Promise is awaited; undefined
        is None); a thrown exception raises JavaScriptError
    wait_for(js_predicate, timeout=10) -> the first truthy value (polled; a throw counts as falsy)
    text() -> document.body.innerText;  title() -> document.title;  url() -> location.href
    links(selector="a[href]") -> [(text, absolute href)]
    click(target) -> a real left click (Input.dispatchMouseEvent) at the centre of the element:
        target is a CSS selector or, when it is not a valid selector, a JavaScript expression that
        yields the element (or does the click itself and yields undefined)
    fill(selector, value) -> sets an input's value and fires input and change events
    ignore_certificate_errors() -> accept any server certificate (a self-signed HTTPS server)
    allow_downloads() -> Browser.setDownloadBehavior(allow, downloads_dir, events on)
    download(target, expected_name=None, timeout=60) -> the downloaded file's path, once
        Browser.downloadProgress says completed; target is a URL (clicked as a link would be: an
        <a href> without a download attribute) or what click() takes
    downloads -> Download records (guid, url, suggested name, path, bytes, state)
    console -> ConsoleMessage records (console.* calls, uncaught exceptions, browser log entries)
    cdp(method, params, timeout) -> a raw CDP command's result;  events(), mark(), wait_event()
    outbound() -> what the host tried to send beyond the bed (watch_outbound, see below)
    output() -> Chromium's log and the console, for failure messages;  stop()

Downloads are named by Chromium: Content-Disposition's filename* (RFC 5987/6266, UTF-8 decoded)
over its filename, else the URL's last path segment, else "download"; characters a file name
cannot hold become "_" ("../../etc/x.sh" -> "_.._etc_x.sh", "a:b*c?.txt" -> "a_b_c_.txt") and a
leading dot goes (".hidden" -> "hidden"); raw UTF-8 in filename="..." is taken as UTF-8. A name
that is already in downloads_dir is overwritten, not made unique (no " (1)": that is the
browser's save dialog's habit, and downloads here have none). Browser.downloadWillBegin tells the
suggested name, the completed downloadProgress the final path. A link to a response without
`Content-Disposition: attachment` whose type the browser can show (text/plain, text/html,
images, ...) is opened as a page, not downloaded: download() then fails saying no download began
and where the page went. An error status with an empty body fails a navigation
(net::ERR_HTTP_RESPONSE_CODE_FAILURE) instead of showing it.

watch_outbound=True (the default) installs an nftables table in the host (`inet hdbrowser`, gone
with the namespace) whose output chain records (and lets pass: the bed has no way out anyway) every
packet the host sends anywhere but loopback, the bed's subnets (unicast), IPv6 link-local and
ICMPv6 (neighbour discovery, MLD): a DNS query, a connection to a public address, mDNS or SSDP
multicast. `outbound()` lists them ("udp 224.0.0.251:5353", ...); the self-test asserts it stays
empty. Without a route for it a packet fails before the output hook (the sender gets ENETUNREACH)
and is not seen, so watch in a bed made with default_route=True, as the self-test does. The watch
covers the whole host: run the browser in a host of its own.
"""

from __future__ import annotations

import ctypes
import http.client
import itertools
import json
import os
import re
import shutil
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from testbed import Host, LineProc, TestbedError, run, wait_until

CHROMIUM_BINARY = "/usr/lib/chromium/chromium"  # Debian's browser; /usr/bin/chromium is a script
_SERIAL = itertools.count(1)
_CLONE_NEWNET = 0x40000000
# Features that fetch things on their own or look for devices on the network.
_DISABLED_FEATURES = ("Translate", "OptimizationHints", "OptimizationGuideModelDownloading",
                      "MediaRouter", "DialMediaRouteProvider", "GlobalMediaControls",
                      "CertificateTransparencyComponentUpdater", "AutofillServerCommunication",
                      "InterestFeedContentSuggestions", "PrivacySandboxSettings4",
                      "HttpsUpgrades", "HttpsFirstBalancedModeAutoEnable")
# Variables of ours that Chromium must not see (proxies, displays, buses, Debian's API keys).
_DROPPED_ENV = re.compile(r"(?i)^(.*_proxy|DISPLAY|WAYLAND_DISPLAY|DBUS_.*|GOOGLE_.*|CHROME_.*"
                          r"|CHROMIUM_.*|XDG_.*)$")


class BrowserError(TestbedError):
    """Chromium or the DevTools Protocol failed: a command's error, a failed navigation, a
    download that did not complete, the browser gone."""


class JavaScriptError(BrowserError):
    """An expression given to evaluate() threw (or its Promise rejected)."""


def chromium_bin() -> str | None:
    """The Chromium to run: Debian's browser binary, else `chromium` on PATH, else None."""
    if os.access(CHROMIUM_BINARY, os.X_OK):
        return CHROMIUM_BINARY
    return shutil.which("chromium")


def browser_unavailable() -> str | None:
    """None if headless Chromium can run here, else why not (for skip_or_fail)."""
    if chromium_bin() is None:
        return ("chromium is not installed (scripts/test --full installs it as root: apt-get "
                "install --no-install-recommends chromium)")
    try:
        import websocket  # noqa: F401 - only whether it is there
    except ImportError:
        return ("websocket-client (the DevTools Protocol client) is not installed (scripts/test "
                "--full installs it as root: python3 -m pip install websocket-client)")
    return None


def connect_in(host: Host, port: int, address: str = "127.0.0.1",
               timeout: float = 5) -> socket.socket:
    """A TCP socket connected to address:port inside host's network namespace. A thread of its own
    enters the namespace (setns), connects and ends; the socket stays in that namespace."""
    libc = ctypes.CDLL(None, use_errno=True)
    got: list[socket.socket | BaseException] = []

    def connect() -> None:
        """In this thread only: enter the namespace, connect."""
        try:
            fd = os.open(f"/run/netns/{host.ns}", os.O_RDONLY)
            try:
                if libc.setns(fd, _CLONE_NEWNET) != 0:
                    err = ctypes.get_errno()
                    raise OSError(err, f"setns({host.ns}): {os.strerror(err)}")
            finally:
                os.close(fd)
            got.append(socket.create_connection((address, port), timeout=timeout))
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            got.append(e)
    thread = threading.Thread(target=connect, name=f"connect-in-{host.ns}", daemon=True)
    thread.start()
    thread.join(timeout + 5)
    if not got:
        raise BrowserError(f"connecting to {address}:{port} in {host.ns} did not end")
    if isinstance(got[0], BaseException):
        raise got[0]
    return got[0]


def http_get_in(host: Host, port: int, path: str, timeout: float = 5) -> tuple[int, bytes]:
    """GET http://127.0.0.1:port<path> inside host (connect_in): (status, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.sock = connect_in(host, port, timeout=timeout)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


@dataclass
class ConsoleMessage:
    """One message for test diagnostics: kind 'console' (console.log and friends; level is its
    type: log, warning, error, ...), 'exception' (uncaught, level 'error') or 'log' (the browser's
    own log: a failed resource load, a blocked request; level as Chromium gives it)."""
    kind: str
    level: str
    text: str
    url: str | None = None

    def __str__(self) -> str:
        return f"[{self.kind}:{self.level}] {self.text}" + (f" ({self.url})" if self.url else "")


@dataclass
class Download:
    """One download as Chromium reported it: guid, url, the name it suggested (downloadWillBegin),
    the file's path once completed, bytes received and expected, and its state (inProgress,
    completed, canceled)."""
    guid: str
    url: str
    suggested_name: str
    path: str | None = None
    received_bytes: int = 0
    total_bytes: int = 0
    state: str = "inProgress"


@dataclass
class _Pending:
    """A CDP command waiting for its response."""
    method: str
    done: threading.Event = field(default_factory=threading.Event)
    response: dict | None = None


class CDPConnection:
    """One DevTools Protocol websocket (to a page target): commands with ids answered by a reader
    thread, events kept in arrival order (mark / events / wait_event, like LineProc)."""

    def __init__(self, sock: socket.socket, url: str, label: str, timeout: float = 10):
        import websocket
        self.label = label
        self.ws = websocket.WebSocket(skip_utf8_validation=True, enable_multithread=True)
        # suppress_origin: Chromium refuses a websocket whose Origin it does not allow.
        self.ws.connect(url, socket=sock, suppress_origin=True, timeout=timeout)
        self.ws.settimeout(None)
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._events: list[dict] = []
        self._cond = threading.Condition()
        self._send_lock = threading.Lock()
        self.closed_reason: str | None = None
        self.listeners: list[Callable[[dict], None]] = []
        threading.Thread(target=self._read, name=f"cdp-{label}", daemon=True).start()

    def _read(self) -> None:
        """Reader thread: hand responses to their waiters, keep and announce events."""
        reason = "closed"
        try:
            while True:
                raw = self.ws.recv()
                if not raw:
                    break
                msg = json.loads(raw)
                if "id" in msg:
                    with self._cond:
                        pending = self._pending.pop(msg["id"], None)
                    if pending:
                        pending.response = msg
                        pending.done.set()
                    continue
                msg["_t"] = time.monotonic()
                for listener in list(self.listeners):
                    listener(msg)
                with self._cond:
                    self._events.append(msg)
                    self._cond.notify_all()
        except Exception as e:  # noqa: BLE001 - the connection's end, whatever ended it
            reason = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        with self._cond:
            self.closed_reason = reason
            pending, self._pending = list(self._pending.values()), {}
            self._cond.notify_all()
        for p in pending:
            p.done.set()

    def send(self, method: str, params: dict | None = None, timeout: float = 10) -> dict:
        """Run one command; its result, or BrowserError with the protocol's error, on timeout or
        when the connection is gone."""
        with self._cond:
            if self.closed_reason is not None:
                raise BrowserError(f"{method}: DevTools connection {self.label} is gone "
                                   f"({self.closed_reason})")
            ident = next(self._ids)
            pending = self._pending[ident] = _Pending(method)
        message = json.dumps({"id": ident, "method": method, "params": params or {}})
        with self._send_lock:
            self.ws.send(message)
        if not pending.done.wait(timeout):
            with self._cond:
                self._pending.pop(ident, None)
            raise BrowserError(f"{method}: no answer within {timeout}s")
        if pending.response is None:
            raise BrowserError(f"{method}: DevTools connection {self.label} closed "
                               f"({self.closed_reason})")
        if "error" in pending.response:
            err = pending.response["error"]
            raise BrowserError(f"{method} failed: {err.get('message')} "
                               f"{err.get('data', '')}".rstrip())
        return pending.response.get("result", {})

    def mark(self) -> int:
        """Number of events so far (use as `start` for later waits)."""
        with self._cond:
            return len(self._events)

    def events(self, start: int = 0, method: str | None = None) -> list[dict]:
        """Events (dicts with method, params, _t) from index start, of one method if given."""
        with self._cond:
            got = self._events[start:]
        return [e for e in got if method is None or e.get("method") == method]

    def wait_event(self, pred: Callable[[dict], bool] | str, timeout: float,
                   start: int = 0) -> dict:
        """The first event at index >= start for which pred(event) is true (or whose method is
        pred), within timeout; BrowserError on timeout or when the connection is gone."""
        match = (lambda e: e.get("method") == pred) if isinstance(pred, str) else pred
        deadline = time.monotonic() + timeout
        index = start
        with self._cond:
            while True:
                while index < len(self._events):
                    event = self._events[index]
                    index += 1
                    if match(event):
                        return event
                if self.closed_reason is not None:
                    raise BrowserError(f"DevTools connection {self.label} is gone "
                                       f"({self.closed_reason})")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BrowserError(f"no such DevTools event within {timeout}s")
                self._cond.wait(min(left, 0.5))

    def close(self) -> None:
        """End the connection (wakes the reader thread)."""
        try:
            self.ws.abort()
        except Exception:  # noqa: BLE001 - already gone
            pass
        try:
            self.ws.shutdown()
        except Exception:  # noqa: BLE001
            pass


# Finds the element a click() target means and puts it in view; see HeadlessChromium.click.
_LOCATE_JS = r"""
((src) => {
  let el, how = "selector";
  try { el = document.querySelector(src); } catch (e) { how = "js"; el = (0, eval)(src); }
  if (how === "js" && el === undefined) return {done: true};
  if (!(el instanceof Element))
    return {error: how === "selector" ? "no element matches " + src
                                      : "the expression gave " + String(el) + ", not an element"};
  el.scrollIntoView({block: "center", inline: "center"});
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (r.width === 0 || r.height === 0) return {error: "element <" + el.tagName + "> is not shown"};
  const hit = document.elementFromPoint(x, y);
  if (!hit || !(hit === el || el.contains(hit)))
    return {error: "element <" + el.tagName + "> is covered by "
                   + (hit ? "<" + hit.tagName + ">" : "nothing")};
  return {x: x, y: y, tag: el.tagName};
})(%s)
"""


class HeadlessChromium:
    """Headless Chromium in a test host, driven over a page target's websocket; see the module
    doc."""

    def __init__(self, host: Host, *, port: int = 0, start_timeout: float = 30,
                 resolve_names: bool = False, watch_outbound: bool = True,
                 window_size: tuple[int, int] = (1280, 900), extra_args: tuple[str, ...] = ()):
        self.host, self.testbed = host, host.testbed
        self.requested_port, self.start_timeout = port, start_timeout
        self.resolve_names, self.watch_outbound = resolve_names, watch_outbound
        self.window_size, self.extra_args = window_size, tuple(extra_args)
        n = next(_SERIAL)
        self.dir = os.path.join(self.testbed.tmpdir, f"chromium-{host.letter}-{n}")
        self.profile_dir = os.path.join(self.dir, "profile")
        self.downloads_dir = os.path.join(self.dir, "downloads")
        self.home = os.path.join(self.dir, "home")
        self.runtime_dir = os.path.join(self.dir, "run")
        self.port: int | None = None
        self.proc: LineProc | None = None
        self.conn: CDPConnection | None = None
        self.target_id: str | None = None
        self.version: dict = {}
        self.console: list[ConsoleMessage] = []
        self.downloads: list[Download] = []
        self._downloads_allowed = False
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"HeadlessChromium(on {self.host.ns}, DevTools port {self.port})"

    # -- process -------------------------------------------------------------------------------

    def chromium_argv(self) -> list[str]:
        """Chromium's command line (module doc)."""
        argv = [chromium_bin() or "chromium",
                "--headless=new", "--no-sandbox", "--disable-gpu",
                f"--remote-debugging-port={self.requested_port}",
                f"--user-data-dir={self.profile_dir}",
                "--no-first-run", "--no-default-browser-check", "--disable-default-apps",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--disable-domain-reliability",
                "--disable-client-side-phishing-detection", "--disable-breakpad",
                "--no-pings", "--metrics-recording-only", "--no-proxy-server",
                "--no-service-autorun", "--password-store=basic",
                "--disable-search-engine-choice-screen", "--deny-permission-prompts",
                "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                "--disable-backgrounding-occluded-windows", "--mute-audio",
                f"--disable-features={','.join(_DISABLED_FEATURES)}",
                f"--window-size={self.window_size[0]},{self.window_size[1]}",
                "--log-level=3"]
        if not self.resolve_names:
            # The rules apply to IP literals too: every address of the bed is excluded by pattern.
            keep = ["localhost", "127.0.0.1", "::1", "fe80::*",
                    *(f"{net}.*" for net in self.testbed.net4_of.values()),
                    *(f"{cidr.split('::')[0]}:*" for cidr in self.testbed.cidr6.values())]
            argv.append("--host-resolver-rules=MAP * ~NOTFOUND, "
                        + ", ".join(f"EXCLUDE {k}" for k in keep))
        return argv + list(self.extra_args) + ["about:blank"]

    def _env(self) -> dict[str, str]:
        """Our environment without proxies, displays, buses and API keys; HOME, XDG_* and TMPDIR
        in dir; D-Bus addresses that lead nowhere."""
        env = {k: v for k, v in os.environ.items() if not _DROPPED_ENV.match(k)}
        nowhere = f"unix:path={os.path.join(self.runtime_dir, 'no-bus')}"
        env.update(HOME=self.home, TMPDIR=self.home, XDG_RUNTIME_DIR=self.runtime_dir,
                   XDG_CONFIG_HOME=os.path.join(self.home, ".config"),
                   XDG_CACHE_HOME=os.path.join(self.home, ".cache"),
                   XDG_DATA_HOME=os.path.join(self.home, ".local", "share"),
                   DBUS_SESSION_BUS_ADDRESS=nowhere, DBUS_SYSTEM_BUS_ADDRESS=nowhere)
        return env

    def start(self) -> "HeadlessChromium":
        """Make its directories, (watch the host,) start Chromium in the host and wait (bounded)
        until the DevTools endpoint answers and the about:blank page target is attached."""
        reason = browser_unavailable()
        if reason:
            raise BrowserError(reason)
        for d in (self.profile_dir, self.downloads_dir, self.home):
            os.makedirs(d, mode=0o700)
        os.makedirs(self.runtime_dir, mode=0o700)
        if self.watch_outbound:
            self._install_watch()
        self.proc = self.host.spawn(*self.chromium_argv(), label=f"{self.host.letter}:chromium",
                                    merge_stderr=True, env=self._env())
        deadline = time.monotonic() + self.start_timeout
        try:
            self.port = wait_until(self._active_port, timeout=self.start_timeout, interval=0.05,
                                   what=f"Chromium on {self.host.ns} to write DevToolsActivePort")
            self.version = self._get_json("/json/version")
            page = wait_until(self._blank_page, timeout=max(1.0, deadline - time.monotonic()),
                              interval=0.05, what="Chromium's about:blank page target")
        except TestbedError as e:
            raise BrowserError(f"{e}\n{self.output()}") from None
        self.target_id = page["id"]
        path = page["webSocketDebuggerUrl"].split(f":{self.port}", 1)[1]
        url = f"ws://127.0.0.1:{self.port}{path}"
        self.conn = CDPConnection(connect_in(self.host, self.port), url,
                                  label=f"{self.host.letter}:page", timeout=10)
        self.conn.listeners.append(self._on_event)
        for method in ("Page.enable", "Runtime.enable", "Log.enable", "Network.enable"):
            self.cdp(method)
        self.cdp("Page.setLifecycleEventsEnabled", {"enabled": True})
        return self

    def _active_port(self) -> int | None:
        """The port in profile/DevToolsActivePort once written (fails fast if Chromium exited)."""
        if self.proc.proc.poll() is not None:
            raise BrowserError(f"chromium exited (rc={self.proc.proc.returncode})")
        try:
            with open(os.path.join(self.profile_dir, "DevToolsActivePort")) as f:
                first = f.read().split("\n")[0].strip()
        except OSError:
            return None
        if not first.isdigit():
            return None
        port = int(first)
        if self.requested_port and port != self.requested_port:
            raise BrowserError(f"chromium listens on {port}, asked for {self.requested_port}")
        return port

    def _get_json(self, path: str) -> Any:
        """GET path of the DevTools endpoint (inside the host) as JSON."""
        status, body = http_get_in(self.host, self.port, path)
        if status != 200:
            raise BrowserError(f"GET {path} of DevTools -> {status}: {body[:200]!r}")
        return json.loads(body)

    def _blank_page(self) -> dict | None:
        """The page target Chromium opened (about:blank), once listed."""
        if self.proc.proc.poll() is not None:
            raise BrowserError(f"chromium exited (rc={self.proc.proc.returncode})")
        pages = [t for t in self._get_json("/json/list") if t.get("type") == "page"]
        return next((t for t in pages if t.get("url") == "about:blank"), None)

    def stop(self) -> int:
        """Close the connection and stop Chromium now (Browser.close, then SIGTERM, SIGKILL);
        teardown does it otherwise. Its exit code."""
        if self.conn:
            try:
                self.conn.send("Browser.close", timeout=3)
            except BrowserError:
                pass
            self.conn.close()
        if not self.proc:
            return 0
        rc = self.proc.wait_exit(5)
        return rc if rc is not None else self.proc.stop(timeout=5)

    def output(self, tail: int = 60) -> str:
        """Chromium's last log lines and the page's console, for failure messages."""
        parts = [self.proc.output(tail)] if self.proc else []
        with self._lock:
            console = [str(m) for m in self.console[-tail:]]
        if console:
            parts.append("--- console:\n" + "\n".join(console))
        return "\n".join(parts)

    # -- protocol ------------------------------------------------------------------------------

    def cdp(self, method: str, params: dict | None = None, timeout: float = 10) -> dict:
        """Run one DevTools Protocol command on the page target; its result."""
        if not self.conn:
            raise BrowserError("HeadlessChromium is not started")
        return self.conn.send(method, params, timeout)

    def mark(self) -> int:
        """Number of protocol events so far (a `start` for wait_event / events)."""
        return self.conn.mark()

    def events(self, start: int = 0, method: str | None = None) -> list[dict]:
        """Protocol events from index start (of one method if given)."""
        return self.conn.events(start, method)

    def wait_event(self, pred: Callable[[dict], bool] | str, timeout: float,
                   start: int = 0) -> dict:
        """The first protocol event at index >= start matching pred (a method name or a
        predicate), within timeout."""
        try:
            return self.conn.wait_event(pred, timeout, start)
        except BrowserError as e:
            raise BrowserError(f"{e}: {pred if isinstance(pred, str) else 'event'}\n"
                               f"{self.output()}") from None

    def _on_event(self, event: dict) -> None:
        """Reader thread: record console messages, exceptions, log entries and downloads."""
        method, p = event.get("method"), event.get("params", {})
        msg: ConsoleMessage | None = None
        if method == "Runtime.consoleAPICalled":
            text = " ".join(_remote_text(a) for a in p.get("args", []))
            frames = (p.get("stackTrace") or {}).get("callFrames") or [{}]
            msg = ConsoleMessage("console", p.get("type", "log"), text, frames[0].get("url"))
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            text = (d.get("exception") or {}).get("description") or d.get("text", "")
            msg = ConsoleMessage("exception", "error", text, d.get("url"))
        elif method == "Log.entryAdded":
            e = p.get("entry", {})
            msg = ConsoleMessage("log", e.get("level", "info"), e.get("text", ""), e.get("url"))
        elif method == "Browser.downloadWillBegin":
            with self._lock:
                self.downloads.append(Download(p["guid"], p.get("url", ""),
                                               p.get("suggestedFilename", "")))
        elif method == "Browser.downloadProgress":
            with self._lock:
                for d in self.downloads:
                    if d.guid == p.get("guid"):
                        d.state = p.get("state", d.state)
                        d.received_bytes = int(p.get("receivedBytes", d.received_bytes))
                        d.total_bytes = int(p.get("totalBytes", d.total_bytes))
                        if p.get("filePath"):
                            d.path = p["filePath"]
        if msg:
            with self._lock:
                self.console.append(msg)

    # -- pages ---------------------------------------------------------------------------------

    def navigate(self, url: str, timeout: float = 30) -> int | None:
        """Open url in the page and wait for its load event; the document's HTTP status (None
        without one: about:, a change of fragment only; data: is 200). BrowserError if it failed."""
        start = self.mark()
        result = self.cdp("Page.navigate", {"url": url}, timeout=timeout)
        if result.get("errorText"):
            raise BrowserError(f"navigating to {url}: {result['errorText']}\n{self.output()}")
        loader = result.get("loaderId")
        if not loader:
            return None  # same-document navigation: no new load
        self.wait_event(lambda e: e.get("method") == "Page.lifecycleEvent"
                        and e["params"].get("name") == "load"
                        and e["params"].get("loaderId") == loader, timeout, start)
        for e in self.events(start, "Network.responseReceived"):
            p = e["params"]
            if p.get("loaderId") == loader and p.get("type") == "Document":
                return int(p["response"]["status"])
        return None

    def evaluate(self, js: str, timeout: float = 10, user_gesture: bool = False) -> Any:
        """The value of JavaScript expression js in the page, as JSON (a Promise is awaited;
        undefined and values JSON cannot hold are None). JavaScriptError if it throws."""
        result = self.cdp("Runtime.evaluate", {
            "expression": js, "returnByValue": True, "awaitPromise": True,
            "userGesture": user_gesture, "timeout": int(timeout * 1000)}, timeout=timeout + 2)
        if "exceptionDetails" in result:
            d = result["exceptionDetails"]
            text = (d.get("exception") or {}).get("description") or d.get("text", "")
            raise JavaScriptError(f"{js!r} threw: {text}")
        return result.get("result", {}).get("value")

    def wait_for(self, js_predicate: str, timeout: float = 10, interval: float = 0.05) -> Any:
        """Evaluate js_predicate until it is truthy (bounded); its value. A throw counts as not
        yet (the last error is shown on timeout, with the console)."""
        last: list[Any] = [None]

        def truthy() -> Any:
            """The predicate's value now (None if it threw)."""
            try:
                last[0] = self.evaluate(js_predicate, timeout=min(timeout, 10))
            except JavaScriptError as e:
                last[0] = e
                return None
            return last[0]
        try:
            return wait_until(truthy, timeout=timeout, interval=interval, what=js_predicate)
        except TestbedError as e:
            raise BrowserError(f"{e} (last value: {last[0]!r})\n{self.output()}") from None

    def text(self) -> str:
        """The page's visible text (document.body.innerText)."""
        return self.evaluate("document.body ? document.body.innerText : ''")

    def title(self) -> str:
        """document.title."""
        return self.evaluate("document.title")

    def url(self) -> str:
        """The page's address (location.href)."""
        return self.evaluate("location.href")

    def links(self, selector: str = "a[href]") -> list[tuple[str, str]]:
        """(text, absolute href) of each element matching selector, in document order."""
        got = self.evaluate(
            f"Array.from(document.querySelectorAll({json.dumps(selector)}))"
            ".map(a => [(a.innerText || a.textContent || '').trim(), a.href])")
        return [(t, h) for t, h in got]

    def click(self, target: str, timeout: float = 10) -> None:
        """A real left click at the centre of the element target means: a CSS selector, or (when
        it is not a valid selector) a JavaScript expression yielding the element. An expression
        yielding undefined is taken as having done its own click (run with a user gesture). The
        element is scrolled into view; hidden or covered, BrowserError."""
        where = self.evaluate(_LOCATE_JS % json.dumps(target), timeout=timeout,
                              user_gesture=True)
        if not isinstance(where, dict):
            raise BrowserError(f"click {target!r}: unexpected {where!r}")
        if where.get("error"):
            raise BrowserError(f"click {target!r}: {where['error']}\n{self.output()}")
        if where.get("done"):
            return
        point = {"x": where["x"], "y": where["y"]}
        self.cdp("Input.dispatchMouseEvent", {"type": "mouseMoved", **point}, timeout)
        for kind in ("mousePressed", "mouseReleased"):
            self.cdp("Input.dispatchMouseEvent",
                     {"type": kind, "button": "left", "buttons": 1 if kind == "mousePressed"
                      else 0, "clickCount": 1, **point}, timeout)

    def fill(self, selector: str, value: str) -> None:
        """Set the value of the input or textarea matching selector and fire input and change
        events, as typing would."""
        ok = self.evaluate(
            f"(() => {{ const el = document.querySelector({json.dumps(selector)});"
            f" if (!el) return false; el.focus(); el.value = {json.dumps(value)};"
            " el.dispatchEvent(new Event('input', {bubbles: true}));"
            " el.dispatchEvent(new Event('change', {bubbles: true})); return true; })()")
        if not ok:
            raise BrowserError(f"fill: no element matches {selector!r}")

    def ignore_certificate_errors(self, ignore: bool = True) -> None:
        """Accept any server certificate from now on (Security.setIgnoreCertificateErrors), e.g.
        a self-signed one; the page's origin is still https, so its scripts and downloads are
        treated as secure."""
        self.cdp("Security.setIgnoreCertificateErrors", {"ignore": ignore})

    # -- downloads -----------------------------------------------------------------------------

    def allow_downloads(self) -> None:
        """Let downloads land in downloads_dir under Chromium's names, with download events."""
        self.cdp("Browser.setDownloadBehavior", {"behavior": "allow",
                                                 "downloadPath": self.downloads_dir,
                                                 "eventsEnabled": True})
        self._downloads_allowed = True

    def download(self, target: str, expected_name: str | None = None,
                 timeout: float = 60) -> str:
        """Start a download and wait until Chromium reports it completed; the file's path.

        target is a URL (absolute, or relative to the page), clicked as a link would be (an
        <a href> without a download attribute), or what click() takes. expected_name, if given,
        must be the name the file ends up with. BrowserError if no download begins (e.g. the
        response was shown as a page), it is cancelled or it does not end within timeout."""
        if not self._downloads_allowed:
            self.allow_downloads()
        deadline = time.monotonic() + timeout
        start = self.mark()
        if re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*:|/)", target):
            self.evaluate(f"(() => {{ const a = document.createElement('a');"
                          f" a.href = {json.dumps(target)}; document.body.appendChild(a);"
                          " a.click(); a.remove(); })()", user_gesture=True)
        else:
            self.click(target)
        try:
            begin = self.conn.wait_event("Browser.downloadWillBegin",
                                         max(0.0, deadline - time.monotonic()), start)
        except BrowserError as e:
            raise BrowserError(f"download {target!r}: none began ({e}); the page is now "
                               f"{self._safe_url()}\n{self.output()}") from None
        guid = begin["params"]["guid"]
        suggested = begin["params"].get("suggestedFilename", "")
        try:
            done = self.conn.wait_event(
                lambda e: e.get("method") == "Browser.downloadProgress"
                and e["params"].get("guid") == guid
                and e["params"].get("state") in ("completed", "canceled"),
                max(0.0, deadline - time.monotonic()), start)
        except BrowserError as e:
            raise BrowserError(f"download {target!r} ({suggested}) did not end: {e}; "
                               f"{self._download(guid)}\n{self.output()}") from None
        p = done["params"]
        if p["state"] != "completed":
            raise BrowserError(f"download {target!r} ({suggested}) was cancelled: "
                               f"{self._download(guid)}\n{self.output()}")
        path = p.get("filePath") or os.path.join(self.downloads_dir, suggested)
        size = int(p.get("receivedBytes", 0))
        try:
            wait_until(lambda: os.path.isfile(path) and os.path.getsize(path) == size,
                       timeout=max(1.0, deadline - time.monotonic()), interval=0.05,
                       what=f"{path} to hold {size} bytes")
        except TestbedError as e:
            raise BrowserError(f"download {target!r}: {e}; in {self.downloads_dir}: "
                               f"{sorted(os.listdir(self.downloads_dir))}") from None
        if expected_name is not None and os.path.basename(path) != expected_name:
            raise BrowserError(f"download {target!r} was saved as {os.path.basename(path)!r} "
                               f"(suggested {suggested!r}), expected {expected_name!r}")
        return path

    def _download(self, guid: str) -> Download | None:
        """The Download record of guid."""
        with self._lock:
            return next((d for d in self.downloads if d.guid == guid), None)

    def _safe_url(self) -> str:
        """location.href, or why it could not be read."""
        try:
            return self.url()
        except BrowserError as e:
            return f"(unknown: {e})"

    # -- what leaves the host ------------------------------------------------------------------

    def _install_watch(self) -> None:
        """The nftables table of watch_outbound (module doc) in the host."""
        if not shutil.which("nft"):
            raise BrowserError("watch_outbound needs nft (apt-get install nftables); "
                               "or HeadlessChromium(..., watch_outbound=False)")
        tb = self.testbed
        nets4 = ", ".join(["127.0.0.0/8", *tb.cidr4.values()])
        nets6 = ", ".join(["::1", "fe80::/10", *tb.cidr6.values()])
        ruleset = f"""
table inet hdbrowser {{
    set out4 {{ type ipv4_addr . inet_proto . inet_service; flags dynamic; size 4096; }}
    set out6 {{ type ipv6_addr . inet_proto . inet_service; flags dynamic; size 4096; }}
    set other4 {{ type ipv4_addr . inet_proto; flags dynamic; size 4096; }}
    set other6 {{ type ipv6_addr . inet_proto; flags dynamic; size 4096; }}
    chain out {{
        type filter hook output priority 0; policy accept;
        ip daddr {{ {nets4} }} accept
        ip6 daddr {{ {nets6} }} accept
        meta l4proto ipv6-icmp accept
        meta l4proto {{ tcp, udp }} add @out4 {{ ip daddr . meta l4proto . th dport }} accept
        meta l4proto {{ tcp, udp }} add @out6 {{ ip6 daddr . meta l4proto . th dport }} accept
        meta nfproto ipv4 add @other4 {{ ip daddr . meta l4proto }}
        meta nfproto ipv6 add @other6 {{ ip6 daddr . meta l4proto }}
    }}
}}
"""
        run(self.host.argv("nft", "-f", "-"), input=ruleset)

    def outbound(self) -> list[str]:
        """What the host tried to send beyond the bed since start (watch_outbound): sorted
        entries such as 'udp 224.0.0.251:5353' or 'igmp 224.0.0.22'."""
        if not self.watch_outbound:
            raise BrowserError("outbound() needs HeadlessChromium(..., watch_outbound=True)")
        seen: set[str] = set()
        for name in ("out4", "out6", "other4", "other6"):
            cp = self.host.run("nft", "-j", "list", "set", "inet", "hdbrowser", name)
            for item in json.loads(cp.stdout).get("nftables", []):
                for elem in (item.get("set") or {}).get("elem", []):
                    value = elem.get("elem", {}).get("val", elem) if isinstance(elem, dict) \
                        else elem
                    parts = (value.get("concat") if isinstance(value, dict) else None) or [value]
                    addr, proto = str(parts[0]), str(parts[1]) if len(parts) > 1 else "?"
                    port = f":{parts[2]}" if len(parts) > 2 else ""
                    shown = f"[{addr}]" if ":" in addr and port else addr
                    seen.add(f"{proto} {shown}{port}")
        return sorted(seen)


def _remote_text(obj: dict) -> str:
    """A console argument (a Runtime.RemoteObject) as text."""
    if "value" in obj:
        v = obj["value"]
        return v if isinstance(v, str) else json.dumps(v)
    return obj.get("description") or obj.get("unserializableValue") or obj.get("type", "")
