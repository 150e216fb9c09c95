"""Fixtures for the real-network interop tests (see testbed.py for the topology).

Without root / `ip netns` / avahi / the huddle binary the tests are skipped with
the reason; with CI=true the same conditions make them fail (error) instead.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile

import pytest

from avahi_peer import Avahi
from bind_server import BindServer, missing_bind_tools
from browser import HeadlessChromium, browser_unavailable
from huddle_cli import huddle as _huddle
from huddle_cli import huddle_unavailable
from kdeconnect_peer import KdeConnect, kdeconnect_unavailable
from localsend_peer import Localsendd, localsendd_unavailable
from localsend_second_peer import LocalsendSecond, localsend_second_unavailable
from testbed import Testbed, missing_tools, netns_available

TYPE = "_lab._tcp"


def in_ci() -> bool:
    """True when env CI says we run in continuous integration."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def skip_or_fail(reason: str) -> None:
    """Skip the test locally; fail it in CI (CI=true) so a broken bed is noticed."""
    if in_ci():
        pytest.fail(f"CI=true and interop prerequisites missing: {reason}", pytrace=False)
    pytest.skip(reason)


def pytest_configure(config) -> None:
    """Turn SIGTERM into KeyboardInterrupt so finalizers and atexit still tear down."""
    def on_term(signum, frame):
        """SIGTERM handler."""
        raise KeyboardInterrupt("SIGTERM")
    signal.signal(signal.SIGTERM, on_term)
    config.addinivalue_line("markers", "hosts(k, dad=False, ula=False, ...): test-bed shape")


@pytest.fixture(scope="session")
def netns_ok() -> None:
    """Session gate: root, iproute2 and namespaces/veths/bridges must work."""
    reason = netns_available()
    if reason:
        skip_or_fail(reason)


@pytest.fixture
def testbed(netns_ok, request) -> Testbed:
    """K fresh hosts on one bridge, torn down afterwards (even on failure).

    Marker `@pytest.mark.hosts(k, dad=False, ula=False)`: default 3 hosts, IPv6 DAD
    disabled (accept_dad=0) and no fd00:: ULA addresses. Other keyword arguments go to
    Testbed too (second_link, second_only, subnets, router, default_route, ifname: see testbed.py).
    """
    marker = request.node.get_closest_marker("hosts")
    tb = Testbed(k=marker.args[0] if marker and marker.args else 3,
                 **(marker.kwargs if marker else {}))
    request.addfinalizer(tb.close)
    return tb.start()


@pytest.fixture
def avahi(testbed):
    """Factory: avahi(host, hostname=None) -> started Avahi (daemon + private D-Bus)."""
    missing = missing_tools(["avahi-daemon", "avahi-browse", "avahi-publish", "dbus-daemon",
                             "nsenter", "unshare"])
    if missing:
        skip_or_fail(f"missing tools: {', '.join(missing)}")

    def start(host, hostname: str | None = None) -> Avahi:
        """Start avahi-daemon (+ private D-Bus) in host; stopped at testbed teardown."""
        return Avahi(host, hostname).start()
    return start


@pytest.fixture
def bind9(testbed):
    """Factory: bind9(host, zone="example.internal") -> started BindServer (bind_server.py): named
    in host serving a dynamic zone that only its TSIG key may update; stopped at testbed teardown."""
    missing = missing_bind_tools()
    if missing:
        skip_or_fail(f"missing tools: {', '.join(missing)} (apt-get install bind9 bind9-utils "
                     "bind9-dnsutils)")

    def start(host, zone: str = "example.internal", **kw) -> BindServer:
        """Write its files under testbed.tmpdir, start named in host, wait until it answers."""
        return BindServer(host, zone, **kw).start()
    return start


@pytest.fixture
def localsendd(testbed):
    """Factory: localsendd(host, alias, **kw) -> started Localsendd (localsend_peer.py): the
    independent LocalSend peer localsendd in host, driven by localsendctl; stopped at testbed
    teardown. Keyword arguments: encryption=True, pin=None, unattended=True, port=53317,
    device_type=None. The bed needs @pytest.mark.hosts(k, default_route=True)."""
    reason = localsendd_unavailable()
    if reason:
        skip_or_fail(reason)

    def start(host, alias: str, **kw) -> Localsendd:
        """Write its directories under testbed.tmpdir, start it in host, wait until it answers."""
        return Localsendd(host, alias, **kw).start()
    return start


@pytest.fixture
def localsend_second(testbed):
    """Factory: localsend_second(host, alias, receive=True, **kw) -> LocalsendSecond
    (localsend_second_peer.py): the `localsend` Python package (a second LocalSend implementation,
    Python 3.12) in host. receive=True starts its receive mode (stopped at testbed teardown);
    either way peer.send(address, files, text=...) runs its one-shot sender there. Keyword
    arguments: encryption=True, port=53317, decline=False. The bed needs
    @pytest.mark.hosts(k, default_route=True)."""
    reason = localsend_second_unavailable()
    if reason:
        skip_or_fail(reason)

    def start(host, alias: str, receive: bool = True, **kw) -> LocalsendSecond:
        """Make its directories under testbed.tmpdir; start its receive mode unless told not."""
        peer = LocalsendSecond(host, alias, **kw)
        return peer.start() if receive else peer
    return start


@pytest.fixture
def kdeconnect(testbed):
    """Factory: kdeconnect(host, name, display=False, **kw) -> started KdeConnect
    (kdeconnect_peer.py): the real KDE Connect daemon (Debian's kdeconnect 22.12) in host with a
    private D-Bus (and with display=True a private Xvfb, for the clipboard), driven over that bus;
    stopped at testbed teardown. Start the daemons of a test one after the other (each start
    returns after its identity broadcast). The bed needs @pytest.mark.hosts(k,
    default_route=True)."""
    reason = kdeconnect_unavailable()
    if reason:
        skip_or_fail(reason)

    def start(host, name: str, **kw) -> KdeConnect:
        """Write its directories under testbed.tmpdir, start it in host, wait until it answers."""
        if kw.get("display"):
            reason = kdeconnect_unavailable(display=True)
            if reason:
                skip_or_fail(reason)
        return KdeConnect(host, name, **kw).start()
    return start


@pytest.fixture
def chromium(testbed):
    """Factory: chromium(host, **kw) -> started HeadlessChromium (browser.py): headless Chromium in
    host, driven over the DevTools Protocol; stopped at testbed teardown. Keyword arguments:
    port=0 (Chromium picks one), resolve_names=False, watch_outbound=True (needs nft),
    start_timeout=30, window_size, extra_args. Skips (fails with CI=true) without chromium or
    websocket-client (scripts/test --full installs both)."""
    reason = browser_unavailable()
    if reason:
        skip_or_fail(reason)

    def start(host, **kw) -> HeadlessChromium:
        """Make its directory under testbed.tmpdir, start it in host, wait for DevTools."""
        return HeadlessChromium(host, **kw).start()
    return start


@pytest.fixture(scope="session")
def huddle_ok() -> None:
    """Session gate: the huddle binary exists and speaks discover/advertise --json."""
    reason = huddle_unavailable()
    if reason:
        skip_or_fail(reason)


@pytest.fixture
def huddle(huddle_ok, testbed):
    """Factory: huddle(host, *args, stdin=False) -> LineProc running the CLI in host."""
    return _huddle


@pytest.fixture
def dig_ok() -> None:
    """Gate for tests that need dig."""
    if missing_tools(["dig"]):
        skip_or_fail("dig (bind9-dnsutils) not installed")


@pytest.fixture
def homes():
    """Factory: homes(letter) -> a fresh data directory; all removed at the end."""
    root = tempfile.mkdtemp(prefix="huddle-chat-")

    def make(letter: str) -> str:
        path = os.path.join(root, letter)
        os.makedirs(path, exist_ok=True)
        return path
    yield make
    shutil.rmtree(root, ignore_errors=True)
