#!/usr/bin/env python3
"""LocalSend benchmark on the namespace test bed: Huddle against localsendd (not collected by pytest).

  swift build -c release --product huddle
  HUDDLE_BIN=.build/release/huddle python3 IntegrationTests/interop/bench_localsend.py [--runs 3] [--size-mib 1024] \
      [--baseline OTHER/huddle]

As root. Two test hosts with a default route (localsendd needs one, localsend_peer.py), a random file of --size-mib
on tmpfs (/dev/shm); every receiver writes to /dev/shm too. The same peers run for the whole benchmark:

  host a: localsendd "ld-a"           host b: localsendd "ld-b" (HTTPS, port 53317)
                                              `huddle receive --dir D --yes` "Bob" (HTTPS, another port)
                                              with --baseline also the baseline's `huddle receive`, "Bob0"

Each round measures, side by side, in an order that is reversed every other round:
  ld → ld:       `localsendctl send FILE --to ld-b` to ld-a: localsendd to localsendd over HTTPS
  huddle → ld:   `huddle send FILE --to ld-b` on host a, a new process each round: its start, finding ld-b by
                 LocalSend's multicast, hashing the file (the offer carries its SHA-256) and the upload are all timed
  ld → huddle:   `localsendctl send FILE --to Bob` to ld-a, into the running `huddle receive`
  with --baseline, the same two with the baseline binary ("base → ld", "ld → base"), for a before/after in one run.
Each time runs from starting the sending command to the file being complete on the receiver: for localsendd its
final name with the right size, closed; for Huddle the final name, given once the SHA-256 matched. Then, outside
the timing, the sending command must have ended well and the file's SHA-256 must be the original's. "Upload began"
is when the receiver's file (or Huddle's hidden partial file) was first seen; the data phase is from then on.

Printed: every round's times, the medians in MiB/s, and the ratios huddle → ld / ld → ld and ld → huddle / ld → ld
(≥ 1.0: Huddle's side is not the slower one), with the CPU seconds (user + system) of each process during each
transfer: `huddle send` from GNU time, the long-running localsendd and `huddle receive` from /proc/<pid>/stat before
and after (localsendctl, a short client of the control socket, is not counted).

Every wait has a deadline (--timeout per transfer); the test bed and the files go away at the end, on a failure or
an interrupt too.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from huddle_cli import huddle_bin  # noqa: E402
from localsend_peer import Localsendd, localsendd_bin, localsendd_unavailable  # noqa: E402
from testbed import LineProc, Testbed, TestbedError, netns_available, wait_until  # noqa: E402

MIB = 1 << 20
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process (all its threads), from /proc/<pid>/stat."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime and stime: fields 14 and 15 of the line


def pin_threads(pid: int, cpu: int) -> None:
    """Every thread of pid onto one CPU (threads it starts later inherit it)."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        os.sched_setaffinity(int(tid), {cpu})


def make_file(path: str, size: int) -> str:
    """A file of size random bytes; its SHA-256."""
    digest = hashlib.sha256()
    with open(path, "wb") as f:
        left = size
        while left:
            chunk = os.urandom(min(left, 4 * MIB))
            f.write(chunk)
            digest.update(chunk)
            left -= len(chunk)
    return digest.hexdigest()


def sha256(path: str) -> str:
    """SHA-256 of a file's content."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(4 * MIB):
            digest.update(chunk)
    return digest.hexdigest()


def has_open(pid: int, path: str) -> bool:
    """Process pid has path open."""
    fd_dir = f"/proc/{pid}/fd"
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


@dataclass
class Huddle:
    """One huddle binary under test: its label in the cases, and its long-running receiver on host b."""
    label: str
    binary: str
    alias: str
    inbox: str = ""
    receiver: LineProc | None = None


class Bench:
    """The bed, its peers and the measurements."""

    def __init__(self, root: str, tb: Testbed, big: str, size: int, digest: str, timeout: float,
                 huddles: list[Huddle], pin_cpus: bool = False):
        self.root, self.tb, self.big, self.size, self.digest = root, tb, big, size, digest
        self.pin_cpus = pin_cpus
        self.name = os.path.basename(big)
        self.timeout = timeout
        self.a, self.b = tb[0], tb[1]
        self.huddles = huddles
        self.ctls: list[subprocess.Popen] = []  # localsendctl processes we started (outside the bed)

    def cases(self) -> list[tuple[str, object]]:
        """The transfers of one round, by name: ld → ld, then each Huddle's two."""
        cases: list[tuple[str, object]] = [("ld → ld", self.ld_to_ld)]
        for h in self.huddles:
            cases.append((f"{h.label} → ld", lambda h=h: self.huddle_to_ld(h)))
            cases.append((f"ld → {h.label}", lambda h=h: self.ld_to_huddle(h)))
        return cases

    def home(self, who: str) -> str:
        """Huddle's data directory for who (kept across rounds: the peer stays pinned)."""
        path = os.path.join(self.root, "home-" + who)
        os.makedirs(path, exist_ok=True)
        return path

    def huddle_argv(self, h: Huddle, host, *args: str) -> list[str]:
        """huddle ARGS on host's test link, with a host name of its own."""
        return [h.binary, *args, "--host", f"{h.label}-{host.letter}", "--interface", host.ifname]

    def huddle_env(self, h: Huddle, host) -> dict:
        return dict(os.environ, HUDDLE_HOME=self.home(f"{h.label}-{host.letter}"))

    def start(self) -> None:
        """localsendd on both hosts, each `huddle receive` on b; wait until ld-a lists ld-b and the receivers."""
        self.ld_a = Localsendd(self.a, "ld-a", log_level="info").start()
        self.ld_b = Localsendd(self.b, "ld-b", log_level="info").start()
        for h in self.huddles:
            h.inbox = os.path.join(self.root, f"inbox-{h.label}")
            os.makedirs(h.inbox)
            # Plain output, not --json: fewer lines for this script to read while it measures.
            h.receiver = self.b.spawn(*self.huddle_argv(h, self.b, "receive", "--dir", h.inbox, "--yes",
                                                        "--name", h.alias),
                                      label=f"b:receive {h.label}", env=self.huddle_env(h, self.b))
            h.receiver.wait_line(lambda l: l.startswith("Receiving into"), 20)
            if os.path.realpath(f"/proc/{h.receiver.pid}/exe") != os.path.realpath(h.binary):
                raise TestbedError("the receiver's pid is not huddle's: its CPU time would be another's")
        self.ld_a.wait_device("ld-b", timeout=20)
        for h in self.huddles:
            self.ld_a.wait_device(h.alias, timeout=20)
        if self.pin_cpus:
            pin_threads(self.ld_a.proc.pid, 0)
            for pid in [self.ld_b.proc.pid, *(h.receiver.pid for h in self.huddles)]:
                pin_threads(pid, 1)

    def on_host_a_cpu(self) -> list[str]:
        """The prefix that keeps a command started on host a on host a's CPU (with --pin-cpus)."""
        return ["taskset", "-c", "0"] if self.pin_cpus else []

    # -- waiting ---------------------------------------------------------------------------------

    @staticmethod
    def poll(fn, deadline: float, what: str):
        """fn() every 10 ms until it returns something, or fail at the deadline."""
        return wait_until(fn, timeout=max(0.0, deadline - time.monotonic()), interval=0.01, what=what)

    def wait_ld_file(self, ld: Localsendd, start: float, deadline: float, abort) -> tuple[str, float]:
        """ld's received file once it has the size and ld closed it; and the seconds from start to the first
        poll that saw the file (the upload had begun)."""
        path = os.path.realpath(os.path.join(ld.download_dir, self.name))
        began: list[float] = []

        def done() -> str | None:
            abort()
            try:
                got = os.path.getsize(path)
            except OSError:
                return None
            if not began:
                began.append(time.monotonic() - start)
            if got != self.size:
                return None
            return None if has_open(ld.proc.pid, path) else path
        return self.poll(done, deadline, f"{self.name} complete at {ld.alias}"), began[0]

    def wait_huddle_file(self, h: Huddle, start: float, deadline: float, abort) -> tuple[str, float]:
        """The file under its final name in the receiver's directory (given once the SHA-256 matched); and the
        seconds from start to the first poll that saw it or its hidden partial file."""
        path = os.path.join(h.inbox, self.name)
        began: list[float] = []

        def done() -> str | None:
            abort()
            if not began and os.listdir(h.inbox):
                began.append(time.monotonic() - start)
            return path if os.path.exists(path) else None
        return self.poll(done, deadline, f"{self.name} complete in {h.inbox}"), began[0]

    # -- one transfer ----------------------------------------------------------------------------

    def ctl_send(self, ld: Localsendd, to: str) -> subprocess.Popen:
        """`localsendctl send FILE --to TO --wait` on ld's control socket, started now (not waited for)."""
        argv = [localsendd_bin("localsendctl"), "--socket", ld.socket, "send", self.big, "--to", to,
                "--wait", "--quiet"]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env=ld._ctl_env(), errors="replace")
        self.ctls.append(proc)
        return proc

    def ctl_failed(self, proc: subprocess.Popen) -> None:
        """Raise if the localsendctl send already ended badly."""
        if proc.poll() is not None and proc.returncode != 0:
            raise TestbedError(f"localsendctl send exited with {proc.returncode}: {proc.stdout.read()}")

    def ctl_result(self, proc: subprocess.Popen, deadline: float) -> None:
        """Wait (bounded) for a localsendctl send to end; fail unless it reports `sent`."""
        try:
            out, _ = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate(timeout=5)
            raise TestbedError("localsendctl send did not end in time") from None
        finally:
            self.ctls.remove(proc)
        if proc.returncode != 0 or "Last result: sent (" not in out:
            raise TestbedError(f"localsendctl send failed (rc={proc.returncode}):\n{out}")

    def check(self, path: str) -> None:
        """Outside the timing: the right bytes; then the file goes, for the next round."""
        got = sha256(path)
        if got != self.digest:
            raise TestbedError(f"{path}: SHA-256 {got}, sent {self.digest}")
        os.remove(path)

    def leftovers(self) -> None:
        """Nothing may be left in the receivers' directories from the round before."""
        for d in [self.ld_b.download_dir] + [h.inbox for h in self.huddles]:
            if os.listdir(d):
                raise TestbedError(f"left in {d}: {os.listdir(d)}")

    def ld_to_ld(self) -> dict:
        """localsendd → localsendd."""
        pids = {"ld-a send": self.ld_a.proc.pid, "ld-b receive": self.ld_b.proc.pid}
        before = {k: cpu_seconds(p) for k, p in pids.items()}
        start = time.monotonic()
        deadline = start + self.timeout
        ctl = self.ctl_send(self.ld_a, "ld-b")
        path, began = self.wait_ld_file(self.ld_b, start, deadline, lambda: self.ctl_failed(ctl))
        seconds = time.monotonic() - start
        self.ctl_result(ctl, deadline)
        cpu = {k: cpu_seconds(p) - before[k] for k, p in pids.items()}
        self.check(path)
        return {"seconds": seconds, "began": began, "cpu": cpu}

    def huddle_to_ld(self, h: Huddle) -> dict:
        """huddle send → localsendd."""
        usage = os.path.join(self.root, "usage-send")
        before = cpu_seconds(self.ld_b.proc.pid)
        start = time.monotonic()
        deadline = start + self.timeout
        sender = self.a.spawn(*self.on_host_a_cpu(), "/usr/bin/time", "-f", "%U %S %M", "-o", usage,
                              *self.huddle_argv(h, self.a, "send", self.big, "--to", "ld-b", "--name", "Ada",
                                                "--wait", "30"),
                              label=f"a:send {h.label}", env=self.huddle_env(h, self.a), merge_stderr=True)

        def abort() -> None:
            if sender.proc.poll() is not None and sender.proc.returncode != 0:
                raise TestbedError(f"huddle send exited with {sender.proc.returncode}\n{sender.output()}")
        path, began = self.wait_ld_file(self.ld_b, start, deadline, abort)
        seconds = time.monotonic() - start
        rc = sender.wait_exit(max(1.0, deadline - time.monotonic()))
        if rc != 0:
            raise TestbedError(f"huddle send ended with {rc}\n{sender.output()}")
        if not any(l.startswith(f"sent {self.name} to ld-b") for _, l in sender.lines):
            raise TestbedError(f"huddle send did not say it sent\n{sender.output()}")
        ld_cpu = cpu_seconds(self.ld_b.proc.pid) - before
        with open(usage) as f:
            user, system, rss = f.read().split()[-3:]
        self.check(path)
        return {"seconds": seconds, "began": began, "rss": int(rss) * 1024,
                "cpu": {f"{h.label} send": float(user) + float(system), "ld-b receive": ld_cpu}}

    def ld_to_huddle(self, h: Huddle) -> dict:
        """localsendd → huddle receive."""
        pids = {"ld-a send": self.ld_a.proc.pid, f"{h.label} receive": h.receiver.pid}
        before = {k: cpu_seconds(p) for k, p in pids.items()}
        start = time.monotonic()
        deadline = start + self.timeout
        ctl = self.ctl_send(self.ld_a, h.alias)

        def abort() -> None:
            self.ctl_failed(ctl)
            if h.receiver.proc.poll() is not None:
                raise TestbedError(f"huddle receive exited\n{h.receiver.output()}")
        path, began = self.wait_huddle_file(h, start, deadline, abort)
        seconds = time.monotonic() - start
        self.ctl_result(ctl, deadline)
        cpu = {k: cpu_seconds(p) - before[k] for k, p in pids.items()}
        self.check(path)
        return {"seconds": seconds, "began": began, "cpu": cpu}

    def close(self) -> None:
        """Stop the localsendctl clients still running (ours, by their pid)."""
        for proc in list(self.ctls):
            if proc.poll() is None:
                proc.kill()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass


def report(results: dict[str, list[dict]], size_mib: int, huddles: list[Huddle]) -> None:
    """Medians, data phases, CPU seconds and the ratios."""
    runs = len(results["ld → ld"])
    mibs = {case: size_mib / statistics.median(r["seconds"] for r in rs) for case, rs in results.items()}
    print(f"medians of {runs} rounds (data phase: from the upload's start on the receiver):")
    for case, rs in results.items():
        cpu = {k: statistics.median(r["cpu"][k] for r in rs) for k in rs[0]["cpu"]}
        cpus = ", ".join(f"{k} {v:.2f}" for k, v in cpu.items())
        began = statistics.median(r["began"] for r in rs)
        data = size_mib / statistics.median(r["seconds"] - r["began"] for r in rs)
        print(f"  {case:14} {mibs[case]:7.1f} MiB/s   upload began at {began:.2f} s, data phase {data:6.1f} MiB/s"
              f"   CPU s (user+sys): {cpus}")
    for h in huddles:
        rss = max(r["rss"] for r in results[f"{h.label} → ld"]) / MIB
        print(f"  {h.label} send peak memory (max RSS): {rss:.1f} MiB")
    for h in huddles:
        for case in (f"{h.label} → ld", f"ld → {h.label}"):
            ratio = mibs[case] / mibs["ld → ld"]
            verdict = "not slower" if ratio >= 1.0 else "SLOWER"
            print(f"  ratio {case} / ld → ld: {ratio:.3f} ({verdict})")
    if len(huddles) == 2:
        new, old = huddles
        for case in ("{} → ld", "ld → {}"):
            print(f"  {case.format(new.label)} / {case.format(old.label)}: "
                  f"{mibs[case.format(new.label)] / mibs[case.format(old.label)]:.3f}")
    sys.stdout.flush()


def on_term(signum, frame) -> None:
    """SIGTERM: unwind, so the finally clause tears the bed down."""
    raise KeyboardInterrupt("SIGTERM")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="rounds; each measures every case, medians printed")
    parser.add_argument("--size-mib", type=int, default=1024, help="size of the file")
    parser.add_argument("--baseline", help="another huddle binary measured in the same rounds (before/after)")
    parser.add_argument("--pin-cpus", action="store_true",
                        help="host a's processes on CPU 0 and host b's on CPU 1, as two one-core machines: the "
                        "scheduler then cannot put a sender and its receiver on one core in some rounds only")
    parser.add_argument("--timeout", type=float, help="deadline of one transfer in seconds "
                        "(default 60 + 1 s per 16 MiB)")
    args = parser.parse_args()
    reason = netns_available() or localsendd_unavailable()
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2
    huddles = [Huddle("huddle", huddle_bin(), "Bob")]
    if args.baseline:
        huddles.append(Huddle("base", args.baseline, "Bob0"))
    for h in huddles:
        if not os.access(h.binary, os.X_OK):
            print(f"cannot run: no huddle binary at {h.binary}", file=sys.stderr)
            return 2
    signal.signal(signal.SIGTERM, on_term)
    size = args.size_mib * MIB
    timeout = args.timeout or 60 + args.size_mib / 16
    root = tempfile.mkdtemp(prefix="huddle-lsbench-", dir="/dev/shm")
    # The test bed's directory (localsendd's homes and download directories) goes under root: on tmpfs too.
    tempfile.tempdir = root
    tb = Testbed(k=2, default_route=True)
    bench = None
    try:
        tb.start()
        big = os.path.join(root, "big.bin")
        digest = make_file(big, size)
        bench = Bench(root, tb, big, size, digest, timeout, huddles, pin_cpus=args.pin_cpus)
        bench.start()
        print(f"huddle: {huddles[0].binary}" + (f"; base: {args.baseline}" if args.baseline else "")
              + f"; localsendd: {localsendd_bin()}; {args.size_mib} MiB file on /dev/shm; {args.runs} rounds"
              + ("; host a on CPU 0, host b on CPU 1" if args.pin_cpus else ""),
              flush=True)
        cases = bench.cases()
        results: dict[str, list[dict]] = {name: [] for name, _ in cases}
        for index in range(args.runs):
            lines = []
            for name, measure in (cases if index % 2 == 0 else list(reversed(cases))):
                bench.leftovers()
                r = measure()
                results[name].append(r)
                cpu = ", ".join(f"{k} {v:.2f}" for k, v in r["cpu"].items())
                lines.append(f"  {name:14} {r['seconds']:6.2f} s {args.size_mib / r['seconds']:7.1f} MiB/s "
                             f"(upload began at {r['began']:.2f} s)   CPU s: {cpu}")
            print(f"round {index + 1} (load average {os.getloadavg()[0]:.2f}):\n" + "\n".join(lines), flush=True)
        report(results, args.size_mib, huddles)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        if bench:
            bench.close()
        tb.close()
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
