#!/usr/bin/env python3
"""Discovery benchmark on the namespace test bed (not collected by pytest).

  python3 IntegrationTests/interop/bench_discovery.py [--runs 20] [--services 50] [--steady 20]

Hosts: a = Huddle responder(s), b = python-zeroconf responder(s), c = the browsers.
1. Time from spawning a *fresh* browser to its first resolved instance, median of
   --runs runs (round-robin over the pairs, --gap s apart):
     Huddle->Huddle   `huddle discover TYPE --json --count 1`, until the first "added"
     Avahi->Huddle    `avahi-browse -rpt TYPE`, until the first "=" line; the daemon is
                      restarted (untimed) before every run so its cache is cold
     zc->zc           peers/zc_browse.py --count 1, until the first "added"
     Avahi->zc        as Avahi->Huddle
   "client start" = median time to run the bare client (`huddle --help`,
   `python3 -c 'import zeroconf.asyncio'`, `avahi-browse --version`): subtract it to
   compare the protocol part only.
2. mDNS packets per second on the link (tcpdump in the bridge namespace, on c's bridge
   port so QU/unicast answers count too) while each browser browses --services services
   for --steady s, started once the responders are idle. Huddle's services are separate
   `huddle advertise` processes sharing one host label (the CLI has one service per
   process, so each answers on its own), python-zeroconf's are one process
   (zc_register.py --instances).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from avahi_peer import Avahi  # noqa: E402
from huddle_cli import advertise, discover, huddle_bin, huddle_unavailable  # noqa: E402
from testbed import LineProc, Testbed, netns_available, ns_pids, run  # noqa: E402
from zc_peer import PEERS, zc_browse, zc_register  # noqa: E402

PAIRS = {  # key: (label, browser, responder)
    "hh": ("Huddle->Huddle", "huddle", "huddle"),
    "ah": ("Avahi->Huddle", "avahi", "huddle"),
    "zz": ("zc->zc", "zc", "zc"),
    "az": ("Avahi->zc", "avahi", "zc"),
}
TIMING_TYPE = {"huddle": "_hbench._tcp", "zc": "_zbench._tcp"}
STEADY_TYPE = {"huddle": "_hsteady._tcp", "zc": "_zsteady._tcp"}


class Bench:
    """Owns the test bed and the long-running peers of one benchmark run."""

    def __init__(self, tb: Testbed, args):
        self.tb, self.args = tb, args
        self.a, self.b, self.c = tb[0], tb[1], tb[2]
        self.avahi: Avahi | None = None
        self.responders: dict[str, LineProc] = {}  # kind -> timing responder

    def fresh_avahi(self) -> Avahi:
        """(Re)start avahi-daemon on c so its cache is empty; not timed."""
        if self.avahi:
            self.avahi.stop()
        self.avahi = Avahi(self.c, "avahi-c").start()
        return self.avahi

    def spawn_browser(self, kind: str, type_: str, count: bool, timeout: float) -> LineProc:
        """Start a browser of kind on c (count: stop after the first instance)."""
        if kind == "huddle":
            return discover(self.c, type_, timeout=timeout, count=1 if count else None)
        if kind == "zc":
            return zc_browse(self.c, type_, timeout=timeout, count=1 if count else None)
        return self.fresh_avahi().spawn("avahi-browse", "-prt" if count else "-pr", type_)

    def time_one(self, kind: str, responder: str) -> float:
        """Seconds from spawning a fresh browser to its first resolved instance."""
        proc = self.spawn_browser(kind, TIMING_TYPE[responder], count=True, timeout=10)
        if kind == "avahi":
            t, _ = proc.wait_line_at(lambda l: l.startswith("="), 10)
        else:
            t = proc.wait_event(lambda e: e.get("event") == "added", 10)["_t"]
        proc.stop(timeout=3)
        return t - proc.started

    def client_start(self, kind: str) -> float:
        """Median seconds to run the bare client binary in c (5 runs)."""
        cmd = {"huddle": [huddle_bin(), "--help"],
               "zc": [sys.executable, "-c", "import zeroconf.asyncio"],
               "avahi": ["avahi-browse", "--version"]}[kind]
        samples = []
        for _ in range(5):
            t0 = time.monotonic()
            run(self.c.argv(*cmd), timeout=20, check=False)
            samples.append(time.monotonic() - t0)
        return statistics.median(samples)

    def start_timing_responders(self, pairs) -> None:
        """One 'Bench' service per responder kind in use."""
        kinds = {PAIRS[p][2] for p in pairs}
        if "huddle" in kinds:
            self.responders["huddle"] = advertise(self.a, "Bench", TIMING_TYPE["huddle"], 4000,
                                                  {"k": "v"}, wait=20)
        if "zc" in kinds:
            self.responders["zc"] = zc_register(self.b, "Bench", TIMING_TYPE["zc"], 4001,
                                                {"k": "v"})

    def timing(self, pairs) -> dict:
        """Round-robin --runs measurements per pair; returns key -> list of seconds."""
        self.start_timing_responders(pairs)
        time.sleep(3)  # let announcements finish
        results = {p: [] for p in pairs}
        for i in range(self.args.runs):
            for p in pairs:
                _, browser, responder = PAIRS[p]
                try:
                    results[p].append(self.time_one(browser, responder))
                except Exception as e:  # noqa: BLE001 - a miss is reported, not fatal
                    resp = self.responders[responder]
                    state = "alive" if resp.proc.poll() is None else f"exited rc={resp.proc.poll()}"
                    print(f"  run {i + 1} {PAIRS[p][0]}: no result ({str(e).splitlines()[0]}); "
                          f"responder {state}; its last lines:\n{resp.output(5)}")
                time.sleep(self.args.gap)
            print(f"  run {i + 1}/{self.args.runs} done", flush=True)
        return results

    def start_steady_responders(self, kinds) -> None:
        """--services instances per responder kind (see module doc)."""
        n = self.args.services
        if "huddle" in kinds:
            procs = [advertise(self.a, f"Steady {i}", STEADY_TYPE["huddle"], 5000 + i,
                               host_label="huddle-a", wait=None) for i in range(1, n + 1)]
            for p in procs:
                p.wait_event(lambda e: e.get("event") == "registered", 60)
        if "zc" in kinds:
            reg = zc_register(self.b, "Steady", STEADY_TYPE["zc"], 5000, wait=None,
                              extra=["--instances", str(n)])
            for i in range(n):
                reg.wait_event(lambda e, k=i: e.get("event") == "registered"
                               and e.get("name") == f"Steady {k + 1}", 60)

    def packets(self, p: str) -> dict:
        """tcpdump on the bridge while browser of pair p browses for --steady s."""
        _, browser, responder = PAIRS[p]
        steady = self.args.steady
        if browser == "avahi":
            self.fresh_avahi()
            time.sleep(4)  # its own host announcements are not browse traffic
        # capture on c's bridge port: all link multicast plus c's unicast (QU answers)
        dump = self.tb.bridge_spawn("tcpdump", "-n", "-l", "-tt", "-i", f"p-{self.c.letter}",
                                    "udp port 5353", label="tcpdump", merge_stderr=True)
        dump.wait_line(lambda l: "listening on" in l, 10)
        resp_host = self.a if responder == "huddle" else self.b
        cpu0 = {h.letter: cpu_snapshot(h) for h in (resp_host, self.c)}
        t0 = time.time()
        proc = self.spawn_browser(browser, STEADY_TYPE[responder], count=False,
                                  timeout=steady + 5)
        time.sleep(steady)
        cpu = {h: cpu_used(self.tb.hosts[ord(h) - ord("a")], snap) for h, snap in cpu0.items()}
        proc.stop(timeout=3)
        time.sleep(0.3)
        dump.stop(timeout=3)
        row = summarize(dump, proc, browser, t0, steady, self.tb)
        row.update(cpu_browser=cpu[self.c.letter], cpu_responder=cpu[resp_host.letter])
        return row


def cpu_seconds(pid: int) -> float:
    """utime + stime of pid (0 if gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_snapshot(host) -> dict:
    """pid -> CPU seconds for every process in host."""
    return {pid: cpu_seconds(pid) for pid in ns_pids(host.ns)}


def cpu_used(host, before: dict) -> float:
    """CPU seconds used by host's processes since the snapshot `before`."""
    return sum(cpu_seconds(pid) - before.get(pid, 0.0) for pid in ns_pids(host.ns))


def wait_idle(hosts, limit: float, busy: float = 0.2) -> float:
    """Wait (<= limit s) until all processes in hosts use < busy CPU-s per second.

    Many Huddle debug-build processes on one link need a while to digest each
    other's probes/announcements (every packet reaches every process)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        pids = [p for h in hosts for p in ns_pids(h.ns)]
        before = sum(map(cpu_seconds, pids))
        time.sleep(2)
        if sum(map(cpu_seconds, pids)) - before < 2 * busy:
            break
    return time.monotonic() - t0


def found_names(proc: LineProc, browser: str) -> int:
    """Distinct instances a browser reported as resolved."""
    if browser == "avahi":
        return len({l.split(";")[3] for _, l in proc.lines if l.startswith("=")})
    return len({e["name"] for e in proc.events() if e.get("event") in ("added", "updated")})


def summarize(dump: LineProc, proc: LineProc, browser: str, t0: float, steady: float,
              tb: Testbed) -> dict:
    """Packet counts from tcpdump -tt lines within [t0, t0+steady], by source host."""
    owners = {}
    for h in tb.hosts:
        owners[h.ipv4] = owners[h.ipv6_ll] = h.letter
    total = browser_pkts = tail = 0
    for _, line in dump.lines:
        parts = line.split()
        if len(parts) < 3 or parts[1] not in ("IP", "IP6"):
            continue
        ts = float(parts[0])
        if not t0 <= ts <= t0 + steady:
            continue
        total += 1
        src = parts[2].rsplit(".", 1)[0]
        browser_pkts += owners.get(src) == "c"
        tail += ts >= t0 + steady / 2
    return {"found": found_names(proc, browser), "total": total / steady,
            "browser": browser_pkts / steady, "responder": (total - browser_pkts) / steady,
            "tail": tail / (steady / 2)}


def print_timing(results: dict, starts: dict) -> None:
    """Table of medians (ms), spread and ratio to Huddle->Huddle."""
    med = {p: statistics.median(v) for p, v in results.items() if v}
    base = med.get("hh")
    print(f"\nDiscovery time: fresh browser -> first resolved instance (ms)")
    print(f"{'pair':<16}{'runs':>5}{'median':>9}{'p10':>8}{'p90':>8}{'vs H->H':>9}"
          f"{'client start':>14}")
    for p, v in results.items():
        label, browser, _ = PAIRS[p]
        if not v:
            print(f"{label:<16}{0:>5}  (no successful run)")
            continue
        q = sorted(v)
        p10, p90 = q[int(0.1 * (len(q) - 1))], q[int(0.9 * (len(q) - 1))]
        ratio = f"{med[p] / base:.2f}x" if base else "-"
        print(f"{label:<16}{len(v):>5}{med[p] * 1e3:>9.0f}{p10 * 1e3:>8.0f}{p90 * 1e3:>8.0f}"
              f"{ratio:>9}{starts[browser] * 1e3:>12.0f}ms")
    if "ah" in med and "az" in med:
        print(f"same browser (Avahi), responder Huddle vs zc: {med['ah'] / med['az']:.2f}x")


def print_packets(rows: dict, services: int, steady: float) -> None:
    """Table of packet rates per pair."""
    print(f"\nmDNS packets/s on the bridge, {steady:.0f} s browse of {services} services")
    print(f"{'':<22}{'--- packets/s ---':^36}{'CPU-s in window':^20}")
    print(f"{'pair':<16}{'found':>6}{'total':>8}{'browser':>9}{'responder':>11}"
          f"{'2nd half':>10}{'browser':>9}{'responder':>11}")
    for p, r in rows.items():
        print(f"{PAIRS[p][0]:<16}{r['found']:>6}{r['total']:>8.1f}{r['browser']:>9.1f}"
              f"{r['responder']:>11.1f}{r['tail']:>10.1f}{r['cpu_browser']:>9.2f}"
              f"{r['cpu_responder']:>11.2f}")
    print("found = instances the browser resolved within the window. Huddle's services run as\n"
          f"{services} processes: each parses every answer of the others, so on a small machine\n"
          "their CPU (and the browser's share of it) reflects that, not the protocol.")


def parse_args():
    """Command line."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--services", type=int, default=50)
    ap.add_argument("--steady", type=float, default=20.0)
    ap.add_argument("--gap", type=float, default=1.0, help="pause between runs (s)")
    ap.add_argument("--pairs", default="hh,ah,zz,az", help="subset of " + ",".join(PAIRS))
    ap.add_argument("--no-packets", action="store_true")
    ap.add_argument("--no-timing", action="store_true")
    return ap.parse_args()


def main() -> int:
    """Build the bed, run both phases, print tables, always tear down."""
    args = parse_args()
    reason = netns_available()
    if reason:
        print(f"cannot run: {reason}")
        return 2
    pairs = [p for p in args.pairs.split(",") if p in PAIRS]
    if (why := huddle_unavailable()):
        print(f"skipping Huddle pairs: {why}")
        pairs = [p for p in pairs if PAIRS[p][2] != "huddle"]
    assert os.path.isdir(PEERS)
    tb = Testbed(k=3).start()
    try:
        bench = Bench(tb, args)
        if not args.no_timing:
            starts = {k: bench.client_start(k) for k in {PAIRS[p][1] for p in pairs}}
            print_timing(bench.timing(pairs), starts)
        if not args.no_packets:
            bench.start_steady_responders({PAIRS[p][2] for p in pairs})
            time.sleep(3)  # announcements over: measure browsing only
            settle = wait_idle([tb[0], tb[1]], limit=180)
            print(f"responders idle after {settle:.0f} s")
            rows = {}
            for p in pairs:
                rows[p] = bench.packets(p)
                time.sleep(2)
            print_packets(rows, args.services, args.steady)
    finally:
        tb.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
