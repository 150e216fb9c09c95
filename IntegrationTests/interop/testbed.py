"""Real-network test bed: K test hosts (network namespaces) on one bridge.

Topology (docs/mdns.md §4.1), all names unique per run (they contain our pid):

    ns hd<pid>_<seq>br : bridge hd<pid>br (mcast_snooping 0), ports p-a, p-b, ...
    ns hd<pid>_<seq>a  : lo + veth-a, 10.<X>.<seq>.1/24 + IPv6 link-local
    ns hd<pid>_<seq>b  : lo + veth-b, 10.<X>.<seq>.2/24 + IPv6 link-local ...

Optional second link (docs/mdns.md §4.1 variants), e.g. Testbed(k=3, second_link=["a"],
second_only=["c"]): a second bridge hd<pid>bs<seq> in ns hd<pid>_<seq>br2 on subnet
10.<Y>.<seq>.0/24. Hosts in second_link get another veth, veth2-<x> (10.<Y>.<seq>.<n>,
Host.ifname2 / ipv4_2 / ipv6_ll2), so they are dual-homed; hosts in second_only have their one
veth-<x> on the second bridge instead of the first (ipv4 then is 10.<Y>.<seq>.<n>).

Subnets and the router, e.g. Testbed(k=3, subnets={"c": 2}, router=True): subnets maps a host
letter to the subnet (1, 2 or 3) of its veth-<x>, default 1 (second_only=["c"] is the same as
subnets={"c": 2}). Subnet 3 is a third bridge hd<pid>bt<seq> in ns hd<pid>_<seq>br3 on
10.<Z>.<seq>.0/24 (e.g. for a DNS server). router=True adds ns hd<pid>_<seq>rt with one veth
rt<n> per subnet in use (bridge port p-rt), address .254 on each, net.ipv4.ip_forward=1 (and IPv6
forwarding with ula=True). Every host gets a route to each subnet it is not on via the router's
address on its own subnet (no default route). Nothing runs in the router: no multicast routing
daemon, so multicast (mDNS) stays on its subnet while unicast crosses. Host.subnet tells a host's
subnet; Testbed.router_ipv4 / router_ula / cidr4 / cidr6 map a subnet number to addresses.

A default route, opt-in, e.g. Testbed(k=2, default_route=True) or @pytest.mark.hosts(2,
default_route=True): every host gets `default via 10.<X>.<seq>.253 dev veth-<x>`, an address on its
own subnet that no host and no router has (Testbed.default_gateway maps a subnet to it). Nothing
answers there and no bridge has an uplink, so no packet can leave the bed; the route only lets
programs that look up "the address I would reach the internet from" (a UDP connect to a public
address, which sends nothing) or join a multicast group on INADDR_ANY find veth-<x>, as localsendd
does (localsend_peer.py). Without it (the default) a host has only its subnet's routes.

Machine-like interface names, opt-in, e.g. Testbed(k=2, ifname="eth0") or @pytest.mark.hosts(2,
ifname="eth0"): each host's first interface is called eth0 (names are per namespace) instead of
veth-<x>, so `huddle` finds it with no --interface (its default filter skips veth* interfaces), as
it would on a real machine. The bridge's ports keep their names (p-a, p-b, ...).

Every process is started inside one of these namespaces, so teardown can stop
exactly the processes of this run (`ip netns pids NS`) and delete exactly its
namespaces. Teardown runs from fixture finalizers and, as a safety net, atexit.
Every wait is bounded.
"""

from __future__ import annotations

import atexit
import ipaddress
import itertools
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from typing import Any, Callable, Iterable

PID = os.getpid()
_SEQ = itertools.count(1)
_LIVE: list["Testbed"] = []  # testbeds not closed yet (closed by atexit)


class TestbedError(RuntimeError):
    """Raised when the test bed cannot be built or a bounded wait expires."""


def run(argv: list[str], timeout: float = 10, check: bool = True,
        input: str | None = None) -> subprocess.CompletedProcess:
    """Run argv to completion (bounded by timeout) and return its text output."""
    try:
        cp = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                            input=input, errors="replace")
    except subprocess.TimeoutExpired as e:
        raise TestbedError(f"timed out after {timeout}s: {' '.join(argv)}") from e
    if check and cp.returncode != 0:
        raise TestbedError(f"{' '.join(argv)} -> rc={cp.returncode}\n{cp.stdout}{cp.stderr}")
    return cp


def wait_until(fn: Callable[[], Any], timeout: float, interval: float = 0.1,
               what: str = "condition") -> Any:
    """Poll fn() until it returns something truthy (returned) or timeout expires."""
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TestbedError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


class LineProc:
    """A child process whose stdout lines are collected by a reader thread.

    `lines` holds (arrival time, text) pairs; waits are bounded and return the
    first matching line/event after an optional start index.
    """

    def __init__(self, argv: list[str], label: str, merge_stderr: bool = False,
                 stdin: bool = False, env: dict | None = None):
        self.argv, self.label = argv, label
        self.lines: list[tuple[float, str]] = []
        self.err_lines: list[str] = []
        self._cond = threading.Condition()
        self.started = time.monotonic()
        # A crashing Swift program would hand its stderr to swift-backtrace, which outlives a SIGKILL of the
        # program and keeps the pipe open, so teardown's reads never end: let crashes print and exit instead.
        env = dict(os.environ if env is None else env)
        env.setdefault("SWIFT_BACKTRACE", "enable=no")
        self.proc = subprocess.Popen(
            argv, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            text=True, bufsize=1, errors="replace", env=env)
        self.pid = self.proc.pid
        self._eof = False
        threading.Thread(target=self._read, args=(self.proc.stdout, True), daemon=True).start()
        if not merge_stderr:
            threading.Thread(target=self._read, args=(self.proc.stderr, False), daemon=True).start()

    def _read(self, stream, is_stdout: bool) -> None:
        """Reader thread: append every line of stream, wake waiters; note EOF."""
        for raw in stream:
            with self._cond:
                if is_stdout:
                    self.lines.append((time.monotonic(), raw.rstrip("\n")))
                else:
                    self.err_lines.append(raw.rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            if is_stdout:
                self._eof = True
            self._cond.notify_all()

    def wait_line_at(self, pred: Callable[[str], bool], timeout: float,
                     start: int = 0) -> tuple[float, str]:
        """First (arrival time, line) at index >= start matching pred; bounded; fails at EOF."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for t, line in self.lines[start:]:
                    if pred(line):
                        return t, line
                left = deadline - time.monotonic()
                if left <= 0 or self._eof:
                    why = "exited" if self._eof else f"no match within {timeout}s"
                    raise TestbedError(f"[{self.label}] {why} (rc={self.proc.poll()})\n"
                                       + self.output())
                self._cond.wait(min(left, 0.2))

    def wait_line(self, pred: Callable[[str], bool], timeout: float, start: int = 0) -> str:
        """Return the first stdout line (index >= start) matching pred, within timeout."""
        return self.wait_line_at(pred, timeout, start)[1]

    def events(self, start: int = 0) -> list[dict]:
        """All stdout lines from index start that parse as JSON objects (+ "_t" arrival)."""
        with self._cond:
            lines = list(self.lines[start:])
        out = []
        for t, line in lines:
            obj = _json_obj(line)
            if obj is not None:
                obj["_t"] = t
                out.append(obj)
        return out

    def wait_event(self, pred: Callable[[dict], bool], timeout: float, start: int = 0) -> dict:
        """Return the first JSON event (line index >= start) matching pred, within timeout."""
        def match(line: str) -> bool:
            """line is a JSON object satisfying pred."""
            obj = _json_obj(line)
            return obj is not None and bool(pred(obj))
        t, line = self.wait_line_at(match, timeout, start)
        obj = _json_obj(line)
        obj["_t"] = t
        return obj

    def mark(self) -> int:
        """Current number of stdout lines (use as `start` for later waits)."""
        with self._cond:
            return len(self.lines)

    def send(self, line: str) -> None:
        """Write one line to the child's stdin."""
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def send_signal(self, sig: int = signal.SIGTERM) -> None:
        """Send sig to the child (our own pid) if it still runs."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)

    def wait_exit(self, timeout: float) -> int | None:
        """Wait up to timeout for the child to exit; return its rc or None."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 5) -> int:
        """Signal the child, wait up to timeout, then SIGKILL it; return rc."""
        self.send_signal(sig)
        rc = self.wait_exit(timeout)
        if rc is None:
            self.proc.kill()
            rc = self.proc.wait(timeout=5)
        for s in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if s:
                    s.close()
            except OSError:
                pass
        return rc

    def output(self, tail: int = 40) -> str:
        """The last stdout and stderr lines, for failure messages."""
        with self._cond:
            out = [l for _, l in self.lines[-tail:]]
            err = self.err_lines[-tail:]
        return (f"--- {self.label} argv: {' '.join(self.argv)}\n--- stdout:\n" + "\n".join(out)
                + ("\n--- stderr:\n" + "\n".join(err) if err else ""))


class Host:
    """One test host: a network namespace with lo + one veth on the bridge of its subnet
    (a second veth on subnet 2 if dual-homed)."""

    def __init__(self, testbed: "Testbed", letter: str, index: int):
        self.testbed, self.letter = testbed, letter
        self.ns = f"{testbed.prefix}{letter}"
        self.ifname = testbed.ifname or f"veth-{letter}"
        # Subnet (bridge) of veth-<x>: 1 unless Testbed subnets / second_only say 2 or 3.
        self.subnet = testbed.host_subnet.get(letter, 1)
        self.ipv4 = f"{testbed.net4_of[self.subnet]}.{index + 1}"
        self.ula = testbed.ula_address(self.subnet, str(index + 1)) if testbed.ula else None
        self.ipv6_ll: str | None = None  # filled once the address is usable
        # Second link (Testbed second_link): veth2-<x> on subnet 2; None when not used.
        dual = letter in testbed.second_link
        self.ifname2 = f"veth2-{letter}" if dual else None
        self.ipv4_2 = f"{testbed.net4_2}.{index + 1}" if dual else None
        self.ipv6_ll2: str | None = None

    @property
    def link(self) -> int:
        """The bridge of veth-<x> (the same number as subnet; the older name)."""
        return self.subnet

    def __repr__(self) -> str:
        return f"Host({self.ns}, {self.ipv4}, subnet {self.subnet}, {self.ipv6_ll})"

    def argv(self, *cmd: str) -> list[str]:
        """argv that runs cmd inside this host's namespace."""
        return ["ip", "netns", "exec", self.ns, *cmd]

    def run(self, *cmd: str, timeout: float = 10, check: bool = True) -> subprocess.CompletedProcess:
        """Run cmd inside the host to completion (bounded)."""
        return run(self.argv(*cmd), timeout=timeout, check=check)

    def spawn(self, *cmd: str, label: str | None = None, **kw) -> LineProc:
        """Start cmd inside the host as a LineProc; it is stopped at teardown."""
        return self.testbed.track(LineProc(self.argv(*cmd), label or f"{self.letter}:{cmd[0]}", **kw))

    @property
    def scoped_ipv6(self) -> str:
        """Link-local address with zone, e.g. fe80::1%veth-a."""
        return f"{self.ipv6_ll}%{self.ifname}"


class Testbed:
    """K hosts on one bridge (optionally up to three subnets, dual-homed hosts, a router between
    the subnets and a default route that leads nowhere, see the module doc); create with start(),
    always close() (idempotent)."""

    def __init__(self, k: int = 3, dad: bool = False, ula: bool = False,
                 second_link: Iterable[str] = (), second_only: Iterable[str] = (),
                 subnets: dict[str, int] | None = None, router: bool = False,
                 default_route: bool = False, ifname: str | None = None):
        assert 1 <= k <= 26
        assert ifname is None or (ifname and len(ifname) <= 15 and not ifname.startswith("veth2-")), ifname
        self.ifname = ifname  # every host's first interface, when not veth-<x>
        # Optional second and third bridge and the router (see module doc).
        self.second_link = set(second_link)
        self.host_subnet = {x: 2 for x in second_only}
        for x, n in (subnets or {}).items():
            assert n in (1, 2, 3), f"subnet of {x} is 1, 2 or 3"
            assert self.host_subnet.get(x, n) == n, f"second_only and subnets disagree on {x}"
            self.host_subnet[x] = n
        self.second_only = {x for x, n in self.host_subnet.items() if n == 2}
        assert all(self.host_subnet.get(x, 1) == 1 for x in self.second_link), \
            "a dual-homed host has veth-<x> on subnet 1"
        self.seq = next(_SEQ)
        self.prefix = f"hd{PID}_{self.seq}"
        self.bridge_ns = f"{self.prefix}br"
        self.bridge_if = f"hd{PID}br"[:15]
        self.net4 = f"10.{20 + PID % 200}.{self.seq % 250}"
        self.net4_2 = f"10.{220 + PID % 30}.{self.seq % 250}"  # 2nd octet never one of net4's
        self.net4_3 = f"10.{250 + PID % 6}.{self.seq % 250}"   # nor one of net4's or net4_2's
        self.net4_of = {1: self.net4, 2: self.net4_2, 3: self.net4_3}
        self.dad, self.ula = dad, ula
        self.bridge2_ns = f"{self.prefix}br2"
        self.bridge2_if = f"hd{PID}bs{self.seq}"[:15]
        self.bridge3_ns = f"{self.prefix}br3"
        self.bridge3_if = f"hd{PID}bt{self.seq}"[:15]
        self.hosts = [Host(self, chr(ord("a") + i), i) for i in range(k)]
        assert {h.letter for h in self.hosts} >= self.second_link | set(self.host_subnet)
        # The bridges in use: subnet number -> (namespace, bridge interface).
        used = {1} | {h.subnet for h in self.hosts} | ({2} if self.second_link else set())
        all_bridges = {1: (self.bridge_ns, self.bridge_if), 2: (self.bridge2_ns, self.bridge2_if),
                       3: (self.bridge3_ns, self.bridge3_if)}
        self.bridges = {n: all_bridges[n] for n in sorted(used)}
        self.cidr4 = {n: f"{self.net4_of[n]}.0/24" for n in self.bridges}
        self.cidr6 = ({n: str(ipaddress.ip_interface(f"{self.ula_address(n, '0')}/64").network)
                       for n in self.bridges} if ula else {})
        # The router (router=True): one interface rt<n> per subnet, address .254 / ::fe on each.
        self.router = router
        assert not router or len(self.bridges) >= 2, "a router joins two or more subnets"
        self.router_ns = f"{self.prefix}rt" if router else None
        self.router_ifname = {n: f"rt{n}" for n in self.bridges} if router else {}
        self.router_ipv4 = {n: f"{self.net4_of[n]}.254" for n in self.bridges} if router else {}
        self.router_ula = ({n: self.ula_address(n, "fe") for n in self.bridges}
                           if router and ula else {})
        # The default route (default_route=True): via .253 on each subnet, an address nobody has.
        self.default_route = default_route
        self.default_gateway = ({n: f"{self.net4_of[n]}.253" for n in self.bridges}
                                if default_route else {})
        self.namespaces: list[str] = []  # created so far (exactly those are deleted)
        self.procs: list[LineProc] = []
        self.cleanups: list[Callable[[], None]] = []
        self.tmpdir = tempfile.mkdtemp(prefix=f"{self.prefix}-")
        self.closed = False

    def ula_address(self, subnet: int, suffix: str) -> str:
        """fd00:<seq>:<subnet - 1>::<suffix>, compressed (subnet 1: fd00:<seq>::<suffix>)."""
        return str(ipaddress.IPv6Address(f"fd00:{self.seq:x}:{subnet - 1:x}::{suffix}"))

    def __getitem__(self, i: int) -> Host:
        return self.hosts[i]

    def track(self, proc: LineProc) -> LineProc:
        """Remember proc so close() stops it."""
        self.procs.append(proc)
        return proc

    def _add_ns(self, name: str) -> None:
        """Create namespace name and record it for teardown."""
        run(["ip", "netns", "add", name])
        self.namespaces.append(name)

    def start(self) -> "Testbed":
        """Build namespaces, bridge, veths and addresses; wait for IPv6 link-local."""
        _LIVE.append(self)
        try:
            for ns, bridge_if in self.bridges.values():
                self._add_ns(ns)
                br = ["ip", "-n", ns]
                run(br + ["link", "add", bridge_if, "type", "bridge", "mcast_snooping", "0"])
                run(br + ["link", "set", bridge_if, "up"])
            for h in self.hosts:
                self._add_host(h)
                if h.ifname2:
                    self._add_second_veth(h)
            if self.router:
                self._add_router()
                for h in self.hosts:
                    self._add_routes(h)
            for h in self.hosts:
                if self.default_route:
                    run(["ip", "-n", h.ns, "route", "add", "default",
                         "via", self.default_gateway[h.subnet], "dev", h.ifname])
            for h in self.hosts:
                h.ipv6_ll = wait_until(lambda: self._link_local(h), timeout=5,
                                       what=f"IPv6 link-local on {h.ns}")
                if h.ifname2:
                    h.ipv6_ll2 = wait_until(lambda: self._link_local(h, h.ifname2), timeout=5,
                                            what=f"IPv6 link-local on {h.ns} {h.ifname2}")
        except BaseException:
            self.close()
            raise
        return self

    def _add_host(self, h: Host) -> None:
        """Create h's namespace and veth pair, plug it into the bridge, add addresses."""
        self._add_ns(h.ns)
        dad = "1" if self.dad else "0"
        for key in ("all", "default"):
            run(h.argv("sysctl", "-qw", f"net.ipv6.conf.{key}.accept_dad={dad}"))
        peer = f"p-{h.letter}"
        bridge_ns, bridge_if = self.bridges[h.subnet]
        run(["ip", "link", "add", h.ifname, "netns", h.ns, "type", "veth",
             "peer", "name", peer, "netns", bridge_ns])
        run(["ip", "-n", bridge_ns, "link", "set", peer, "master", bridge_if, "up"])
        run(h.argv("sysctl", "-qw", f"net.ipv6.conf.{h.ifname}.accept_dad={dad}"))
        run(["ip", "-n", h.ns, "link", "set", "lo", "up"])
        run(["ip", "-n", h.ns, "addr", "add", f"{h.ipv4}/24", "dev", h.ifname])
        if h.ula:
            run(["ip", "-n", h.ns, "addr", "add", f"{h.ula}/64", "dev", h.ifname, "nodad"])
        run(["ip", "-n", h.ns, "link", "set", h.ifname, "up"])

    def _add_second_veth(self, h: Host) -> None:
        """Give h a second veth (veth2-<x>) on the second bridge, port q-<x>, with ipv4_2."""
        dad = "1" if self.dad else "0"
        peer = f"q-{h.letter}"
        run(["ip", "link", "add", h.ifname2, "netns", h.ns, "type", "veth",
             "peer", "name", peer, "netns", self.bridge2_ns])
        run(["ip", "-n", self.bridge2_ns, "link", "set", peer, "master", self.bridge2_if, "up"])
        run(h.argv("sysctl", "-qw", f"net.ipv6.conf.{h.ifname2}.accept_dad={dad}"))
        run(["ip", "-n", h.ns, "addr", "add", f"{h.ipv4_2}/24", "dev", h.ifname2])
        run(["ip", "-n", h.ns, "link", "set", h.ifname2, "up"])

    def _add_router(self) -> None:
        """The router namespace: veth rt<n> on each bridge (port p-rt), .254 (and ::fe), forwarding
        on. Nothing is started in it, so no multicast routing: mc_forwarding stays 0."""
        self._add_ns(self.router_ns)
        r = ["ip", "-n", self.router_ns]
        sysctl = ["ip", "netns", "exec", self.router_ns, "sysctl", "-qw"]
        for key in ("all", "default"):
            run(sysctl + [f"net.ipv6.conf.{key}.accept_dad=0"])
        run(r + ["link", "set", "lo", "up"])
        for n, (bridge_ns, bridge_if) in self.bridges.items():
            ifname = self.router_ifname[n]
            run(["ip", "link", "add", ifname, "netns", self.router_ns, "type", "veth",
                 "peer", "name", "p-rt", "netns", bridge_ns])
            run(["ip", "-n", bridge_ns, "link", "set", "p-rt", "master", bridge_if, "up"])
            run(r + ["addr", "add", f"{self.router_ipv4[n]}/24", "dev", ifname])
            if self.ula:
                run(r + ["addr", "add", f"{self.router_ula[n]}/64", "dev", ifname, "nodad"])
            run(r + ["link", "set", ifname, "up"])
        # Set after the interfaces exist, so each of them forwards (writing these sets all of them).
        run(sysctl + ["net.ipv4.ip_forward=1"])
        if self.ula:
            run(sysctl + ["net.ipv6.conf.all.forwarding=1"])

    def _add_routes(self, h: Host) -> None:
        """Routes on h to each subnet it is not on, via the router's address on h's subnet (a
        dual-homed host's veth2-<x> has no ULA, so its IPv6 route to subnet 2 goes via the router)."""
        for n in self.bridges:
            if n != h.subnet and not (n == 2 and h.ifname2):
                run(["ip", "-n", h.ns, "route", "add", self.cidr4[n],
                     "via", self.router_ipv4[h.subnet], "dev", h.ifname])
            if self.ula and n != h.subnet:
                run(["ip", "-n", h.ns, "-6", "route", "add", self.cidr6[n],
                     "via", self.router_ula[h.subnet], "dev", h.ifname])

    def _link_local(self, h: Host, ifname: str | None = None) -> str | None:
        """h's usable (non-tentative) fe80:: address on ifname (default veth-<x>), or None yet."""
        cp = run(["ip", "-n", h.ns, "-j", "-6", "addr", "show", "dev", ifname or h.ifname,
                  "scope", "link"])
        for link in json.loads(cp.stdout or "[]"):
            for a in link.get("addr_info", []):
                if a.get("local", "").startswith("fe80") and not a.get("tentative"):
                    return a["local"]
        return None

    def bridge_spawn(self, *cmd: str, label: str = "bridge", **kw) -> LineProc:
        """Start cmd inside the bridge namespace (e.g. tcpdump -i <bridge_if>)."""
        return self.track(LineProc(["ip", "netns", "exec", self.bridge_ns, *cmd], label, **kw))

    def close(self) -> None:
        """Stop our processes, kill what is left in our namespaces, delete them."""
        if self.closed:
            return
        self.closed = True
        for fn in reversed(self.cleanups):
            _quietly(fn)
        for p in reversed(self.procs):
            _quietly(lambda: p.stop(timeout=3))
        for ns in reversed(self.namespaces):
            _quietly(lambda: _kill_ns_pids(ns))
            _quietly(lambda: run(["ip", "netns", "del", ns], check=False))
        shutil.rmtree(self.tmpdir, ignore_errors=True)
        if self in _LIVE:
            _LIVE.remove(self)


def _json_obj(line: str) -> dict | None:
    """line parsed as a JSON object, or None."""
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def _quietly(fn: Callable[[], Any]) -> None:
    """Run a teardown step, never letting it raise."""
    try:
        fn()
    except Exception:  # noqa: BLE001 - teardown must go on
        pass


def ns_pids(ns: str) -> list[int]:
    """Pids of processes living in namespace ns (all started by this run)."""
    cp = run(["ip", "netns", "pids", ns], check=False, timeout=5)
    return [int(x) for x in cp.stdout.split() if x.isdigit()]


def _kill_ns_pids(ns: str, grace: float = 2.0) -> None:
    """SIGTERM every process in our namespace ns, SIGKILL survivors after grace."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = ns_pids(ns)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and ns_pids(ns):
            time.sleep(0.1)


@atexit.register
def _close_all() -> None:
    """Safety net: close every testbed still open when the interpreter exits."""
    for tb in list(_LIVE):
        tb.close()


def netns_available() -> str | None:
    """None if we can create namespaces and veths here, else a reason string."""
    if os.geteuid() != 0:
        return "interop tests need root (network namespaces)"
    if not shutil.which("ip"):
        return "iproute2 `ip` not found"
    tb = Testbed(k=1)
    try:
        tb.start()
    except Exception as e:  # noqa: BLE001
        return f"cannot create network namespaces: {e}"
    finally:
        tb.close()
    return None


def missing_tools(tools: Iterable[str]) -> list[str]:
    """Names from tools that are not on PATH."""
    return [t for t in tools if not shutil.which(t)]


def expect(proc: LineProc, pred: Callable[[dict], bool], timeout: float, start: int = 0,
           also: Iterable[LineProc] = (), what: str = "event") -> dict:
    """proc.wait_event as a test assertion: on timeout, fail showing what every
    involved process (proc + also) printed."""
    try:
        return proc.wait_event(pred, timeout, start)
    except TestbedError as e:
        context = "\n".join(p.output() for p in also)
        raise AssertionError(f"expected {what} within {timeout}s\n{e}\n{context}") from None


def match(event: str | tuple = None, **fields) -> Callable[[dict], bool]:
    """Predicate for JSON events: event in `event` (str or tuple) and fields equal."""
    kinds = (event,) if isinstance(event, str) else event

    def pred(e: dict) -> bool:
        """True if e matches."""
        if kinds and e.get("event") not in kinds:
            return False
        return all(e.get(k) == v for k, v in fields.items())
    return pred
