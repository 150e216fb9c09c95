#!/usr/bin/env python3
"""Soak (issue 7): peers chat, send files and sync a clipboard on test hosts while peers join and leave; the
long-lived processes' memory, descriptors and threads must not grow.

    python3 IntegrationTests/interop/soak.py [--seconds 1800] [--peers 8] [--seed N]     (or: scripts/soak)

Every test host runs `huddle chat --yes`; host 0's chat ("Anchor") never leaves, the others leave and come back
(half of the time by /quit, half by SIGKILL). Host 0 also runs `huddle receive` ("Inbox", session SoakFiles) and
the other hosts send it 1 MiB files one at a time. The last two hosts run `huddle clip sync` on X servers of their
own and copy text in turn; a third clipboard peer on host 1 comes and goes with host 1's chat.

Checked: every chat line arrives at most once and in order at every chat; every line sent by a peer that was
connected to Anchor and stayed at least 3 s more reaches Anchor; every file arrives identical; every copied text
reaches the other clipboard within 10 s; Anchor's, Inbox's and the clipboards' resident memory, open descriptors
and threads at the end are within bounds of their values after warm-up. Prints a figure line every 30 s and a
summary; exits 1 if a check fails. Needs root, `ip netns`, Xvfb and xclip; everything it starts stops by itself.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from huddle_cli import huddle_bin  # noqa: E402
from testbed import Testbed  # noqa: E402
from xdisplay import XDisplay  # noqa: E402

MIB = 1 << 20
LIMITS = {"rss_mib": 16.0, "fds": 8, "threads": 4}  # growth allowed from warm-up to the end


def proc_figures(pid: int) -> dict | None:
    """Resident MiB, open descriptors and threads of pid (None once it has exited)."""
    try:
        status = open(f"/proc/{pid}/status").read()
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return {"rss_mib": int(fields["VmRSS"].split()[0]) / 1024, "fds": fds, "threads": int(fields["Threads"])}


class Soak:
    def __init__(self, testbed, root: str, displays: list, seconds: float, seed: int, log=print):
        self.tb, self.root, self.displays, self.seconds = testbed, root, displays, seconds
        self.rng, self.log = random.Random(seed), log
        self.n = len(testbed.hosts)
        self.chats: dict[int, list] = {i: [] for i in range(self.n)}  # every chat process ever, per host
        self.up: dict[int, object] = {}
        self.stopped_at: dict[int, list[float]] = {i: [] for i in range(self.n)}
        self.sent: list[tuple[float, int, str, int]] = []  # (time, host, name, seq)
        self.seq = 0
        self.transfers: list[tuple[str, str]] = []  # (file name, sha256)
        self.transfer_failures: list[str] = []
        self.clips = {"ok": 0, "failed": 0, "worst_s": 0.0}
        self.samples: dict[str, list[tuple[float, dict]]] = {}
        self.churn_clip = None

    def name(self, i: int) -> str:
        return "Anchor" if i == 0 else f"P{i}"

    def home(self, role: str) -> str:
        path = os.path.join(self.root, role)
        os.makedirs(path, exist_ok=True)
        return path

    def spawn(self, i: int, role: str, *args: str, env: dict | None = None, stdin: bool = False):
        host = self.tb[i]
        argv = [huddle_bin(), *args, "--host", f"soak-{role.lower()}", "--interface", host.ifname]
        env = dict(env or os.environ, HUDDLE_HOME=self.home(role))
        return host.spawn(*argv, label=f"{host.letter}:{role}", env=env, stdin=stdin)

    def start_chat(self, i: int) -> None:
        proc = self.spawn(i, self.name(i), "chat", "--yes", "--name", self.name(i), "--disconnect-timeout", "5",
                          stdin=True)
        self.chats[i].append(proc)
        self.up[i] = proc
        if i == 1 and self.displays:
            self.churn_clip = self.clip(1, "ClipC", self.displays[2])

    def stop_chat(self, i: int) -> None:
        proc = self.up.pop(i)
        self.stopped_at[i].append(time.monotonic())
        if self.rng.random() < 0.5:
            proc.send("/quit")
            proc.wait_exit(10)
        else:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait_exit(10)
        if i == 1 and self.churn_clip:
            self.churn_clip.stop()
            self.churn_clip = None

    def clip(self, i: int, name: str, display: XDisplay):
        return self.spawn(i, name, "clip", "sync", "--trust-on-first-use", "--name", name,
                          env=display.env())

    def run(self) -> dict:
        for i in range(self.n):
            self.start_chat(i)
        inbox = self.home("inbox-files")
        files = self.home("outbox-files")
        self.inbox_proc = self.spawn(0, "Inbox", "receive", "--yes", "--session", "SoakFiles", "--name", "Inbox",
                                     "--dir", inbox)
        clips = []
        if self.displays:
            clips = [self.clip(self.n - 2, "ClipA", self.displays[0]), self.clip(self.n - 1, "ClipB",
                                                                                   self.displays[1])]
            clips[0].wait_line(lambda l: l == "+ ClipB connected", 40)
        watched = {"Anchor": self.up[0], "Inbox": self.inbox_proc}
        if clips:
            watched.update({"ClipA": clips[0], "ClipB": clips[1]})
        start = time.monotonic()
        next_line, next_churn, next_send, next_clip, next_sample, next_report = (start + 5,) * 6
        sender = None
        clip_pending = None  # (display to watch, text, deadline, copied at)
        clip_turn = 0
        while (now := time.monotonic()) < start + self.seconds:
            if now >= next_line and self.up:
                i = self.rng.choice(sorted(self.up))
                self.seq += 1
                self.up[i].send(f"soak {self.name(i)} {self.seq}")
                self.sent.append((now, i, self.name(i), self.seq))
                next_line = now + 0.25
            if now >= next_churn:
                i = self.rng.randrange(1, self.n)
                self.stop_chat(i) if i in self.up else self.start_chat(i)
                next_churn = now + 6
            if sender is not None and sender.proc.poll() is not None:
                name, digest = sender.file
                if sender.proc.returncode == 0:
                    self.transfers.append((name, digest))
                else:
                    self.transfer_failures.append(f"{name}: rc={sender.proc.returncode}\n{sender.output(8)}")
                sender = None
            if sender is None and now >= next_send:
                i = self.rng.randrange(1, self.n)
                name = f"soak-{len(self.transfers) + len(self.transfer_failures):04d}.bin"
                data = self.rng.randbytes(MIB)
                with open(os.path.join(files, name), "wb") as f:
                    f.write(data)
                sender = self.spawn(i, f"Sender{i}", "send", os.path.join(files, name), "--to", "Inbox", "--yes",
                                    "--session", "SoakFiles", "--name", f"Sender{i}")
                sender.file = (name, hashlib.sha256(data).hexdigest())
                next_send = now + 3
            if clips and clip_pending is None and now >= next_clip:
                source, target = (0, 1) if clip_turn % 2 == 0 else (1, 0)
                text = f"soak clip {clip_turn}".encode()
                self.displays[source].copy(text)
                clip_pending = (self.displays[target], text, now + 10, now)
                clip_turn += 1
            if clip_pending is not None:
                display, text, deadline, copied = clip_pending
                if display.paste() == text:
                    self.clips["ok"] += 1
                    self.clips["worst_s"] = max(self.clips["worst_s"], now - copied)
                    clip_pending, next_clip = None, now + 2
                elif now > deadline:
                    self.clips["failed"] += 1
                    clip_pending, next_clip = None, now + 2
            if now >= next_sample:
                for label, proc in watched.items():
                    figures = proc_figures(proc.pid)
                    if figures:
                        self.samples.setdefault(label, []).append((now - start, figures))
                next_sample = now + 2
            if now >= next_report:
                self.report_line(now - start)
                next_report = now + 30
            time.sleep(0.05)
        if sender is not None:
            rc = sender.wait_exit(60)
            if rc == 0:
                self.transfers.append(sender.file)
            else:
                self.transfer_failures.append(f"{sender.file[0]}: rc={rc}\n{sender.output(8)}")
        time.sleep(3)  # the last lines and files land
        return self.summary(inbox, watched)

    def report_line(self, elapsed: float) -> None:
        figures = {k: v[-1][1] for k, v in self.samples.items() if v}
        text = ", ".join(f"{k} {f['rss_mib']:.1f} MiB {f['fds']} fds {f['threads']} thr" for k, f in figures.items())
        self.log(f"[{elapsed:5.0f} s] up {len(self.up)}/{self.n}, lines {len(self.sent)}, files "
                 f"{len(self.transfers)} (+{len(self.transfer_failures)} failed), clips {self.clips['ok']} "
                 f"(+{self.clips['failed']} failed); {text}")

    def chat_checks(self) -> dict:
        """Order and once at every chat; everything a connected, staying peer sent reached Anchor."""
        order_errors = []
        for i, procs in self.chats.items():
            for proc in procs:
                last: dict[str, int] = {}
                for _, line in proc.lines:
                    parts = line.split(" ")
                    if len(parts) == 4 and parts[1] == "soak" and parts[0].endswith(":"):
                        who, seq = parts[2], int(parts[3])
                        if seq <= last.get(who, 0):
                            order_errors.append(f"{proc.label}: {who} {seq} after {last[who]}")
                        last[who] = seq
        anchor = self.chats[0][0]
        got = {int(l.split(" ")[3]) for _, l in anchor.lines if l.startswith("P") and " soak " in l}
        must, missing = 0, []
        for t, i, name, seq in self.sent:
            if i == 0 or not self.connected_to_anchor(i, t) or any(0 <= s - t < 3 for s in self.stopped_at[i]):
                continue
            must += 1
            if seq not in got:
                missing.append(seq)
        return {"order_errors": order_errors, "must_reach_anchor": must, "missing_at_anchor": missing}

    def connected_to_anchor(self, i: int, t: float) -> bool:
        """Whether the chat host i ran at time t had printed "* connected to Anchor" (and no leave since) by
        t - 0.5 s. Chat k of a host lives from its start to the k-th stop."""
        for k, proc in enumerate(self.chats[i]):
            ended = self.stopped_at[i][k] if k < len(self.stopped_at[i]) else float("inf")
            if not proc.started <= t < ended:
                continue
            state = False
            for at, line in list(proc.lines):
                if at > t - 0.5:
                    break
                if line == "* connected to Anchor":
                    state = True
                elif line in ("* Anchor left the chat", "* Anchor is gone"):
                    state = False
            return state
        return False

    def summary(self, inbox: str, watched: dict) -> dict:
        chat = self.chat_checks()
        wrong = [name for name, digest in self.transfers
                 if not os.path.exists(os.path.join(inbox, name))
                 or hashlib.sha256(open(os.path.join(inbox, name), "rb").read()).hexdigest() != digest]
        growth = {}
        for label, samples in self.samples.items():
            warm = [f for t, f in samples if t >= min(30.0, self.seconds / 4)]
            if len(warm) < 2:
                continue
            first, last = warm[0], warm[-1]
            growth[label] = {k: {"warm": round(first[k], 1), "end": round(last[k], 1),
                                 "max": round(max(f[k] for f in warm), 1)} for k in LIMITS}
        over = [f"{label} {k} {g[k]['warm']} -> {g[k]['end']}" for label, g in growth.items() for k in LIMITS
                if g[k]["end"] - g[k]["warm"] > LIMITS[k]]
        alive = {label: proc.proc.poll() is None for label, proc in watched.items()}
        report = {"seconds": self.seconds, "peers": self.n, "lines_sent": len(self.sent),
                  "must_reach_anchor": chat["must_reach_anchor"], "missing_at_anchor": chat["missing_at_anchor"],
                  "order_errors": chat["order_errors"][:10], "files_ok": len(self.transfers),
                  "files_failed": self.transfer_failures[:5], "files_wrong": wrong, "clips": self.clips,
                  "growth": growth, "over_limits": over, "alive": alive,
                  "churn": sum(len(v) for v in self.stopped_at.values())}
        report["ok"] = (not chat["order_errors"] and not chat["missing_at_anchor"] and not self.transfer_failures
                        and not wrong and self.clips["failed"] == 0 and not over and all(alive.values())
                        and len(self.transfers) > 0 and self.clips["ok"] > 0)
        return report


def print_summary(report: dict) -> None:
    """The report as a few readable lines and a table of the watched processes."""
    print(f"{report['peers']} peers, {report['seconds']:.0f} s, {report['churn']} leaves (and as many joins)")
    print(f"chat: {report['lines_sent']} lines sent, {report['must_reach_anchor']} had to reach Anchor, "
          f"{len(report['missing_at_anchor'])} missing, {len(report['order_errors'])} out of order or twice")
    print(f"files: {report['files_ok']} verified, {len(report['files_failed'])} failed, "
          f"{len(report['files_wrong'])} wrong")
    clips = report["clips"]
    print(f"clipboard: {clips['ok']} copies arrived (slowest {clips['worst_s']:.2f} s), {clips['failed']} did not")
    print(f"{'process':8} {'RSS MiB warm → end (max)':>26} {'fds warm → end (max)':>22} "
          f"{'threads warm → end (max)':>26}")
    for label, g in report["growth"].items():
        cells = [f"{g[k]['warm']:g} → {g[k]['end']:g} ({g[k]['max']:g})" for k in LIMITS]
        print(f"{label:8} {cells[0]:>26} {cells[1]:>22} {cells[2]:>26}")
    for line in report["over_limits"] + report["order_errors"] + report["files_failed"]:
        print(f"  ! {line}")
    if report["missing_at_anchor"]:
        print(f"  ! missing at Anchor: {report['missing_at_anchor'][:20]}")
    for label, alive in report["alive"].items():
        if not alive:
            print(f"  ! {label} exited")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1800)
    parser.add_argument("--peers", type=int, default=8)
    parser.add_argument("--seed", type=int, default=int(time.time_ns() % 1_000_000))
    parser.add_argument("--json", action="store_true", help="also print the whole report as one JSON line")
    args = parser.parse_args()
    print(f"soak: {args.peers} peers for {args.seconds:.0f} s, seed {args.seed}, binary {huddle_bin()}")
    displays = [XDisplay() for _ in range(3)]
    root = tempfile.mkdtemp(prefix="huddle-soak-")
    tb = Testbed(k=args.peers).start()
    try:
        report = Soak(tb, root, displays, args.seconds, args.seed).run()
    finally:
        tb.close()
        for display in displays:
            display.stop()
        import shutil
        shutil.rmtree(root, ignore_errors=True)
    print_summary(report)
    if args.json:
        print(json.dumps(report, sort_keys=True))
    print("soak: OK" if report["ok"] else "soak: FAILED")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
