#!/usr/bin/env python3
"""File-transfer benchmark on the namespace test bed (not collected by pytest).

  swift build -c release --product huddle
  HUDDLE_BIN=.build/release/huddle python3 IntegrationTests/interop/bench_transfer.py [--runs 3] [--size-mib 1024]

Two test hosts, sender a and receiver b, files on tmpfs (/dev/shm), every tool in the same run, side by side:
  huddle:       `huddle send FILE --to Bob` → `huddle receive --dir D --yes` (TLS 1.3, SHA-256 verified)
  socat TCP:    `socat -u OPEN:FILE TCP:b:PORT` → `socat -u TCP-LISTEN:PORT OPEN:OUT,creat`
  socat TLS:    the same over OPENSSL / OPENSSL-LISTEN with a throwaway self-signed P-256 certificate
  wormhole:     `wormhole send` → `wormhole receive`, with a mailbox server and a transit relay (`twist
                wormhole-mailbox`, `twist transitrelay`) running on host b, bound to its test address
Then 1,000 files of 10 KiB: `huddle send` of the 1,000 paths, and tar through socat (TCP and TLS). Then the big
file's bytes as a directory of four files: `huddle send DIR` and tar through socat + TLS (--skip directory). Last, chat
during a transfer: `huddle-peer-bench client --mode chat` sends the big file to `serve --dir` and 20 messages over
the same connection meanwhile, each timed one way (needs `swift build -c release --product huddle-peer-bench`).

Each figure is the median of --runs. Times run from starting the sending command to the file being complete on
the receiver (for Huddle: verified). Huddle's "data phase" is from the receiver's offer to the sender's
"verified" (it leaves out start-up, discovery and connecting). Peak memory is
each Huddle process's maximum resident set (GNU time's %M). CPU is the user + system seconds of the sending and the
receiving process together (GNU time's %U + %S) per GiB; with this machine's cores all busy, the rate no tool can
pass is cores / (CPU seconds per GiB): the "CPU ceiling" printed beside it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from huddle_cli import huddle_bin  # noqa: E402
from peer_bench import common, peer_bench_bin  # noqa: E402
from test_huddle_transfer import make_file  # noqa: E402
from testbed import Testbed, netns_available, wait_until  # noqa: E402

MIB = 1 << 20
PORT = 17000


def listening(host, port: int) -> bool:
    """True once something in host listens on TCP port."""
    return f":{port} " in host.run("ss", "-Hltn").stdout


def clear(directory: str) -> None:
    """Empty directory (hidden partial files included)."""
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)


def usage(path: str) -> tuple[int, float, float]:
    """Max RSS in bytes, CPU seconds (user + system) and user CPU seconds alone from a GNU time -f "%M %U %S"
    output file."""
    with open(path) as f:
        rss, user, system = f.read().splitlines()[-1].split()
    return int(rss) * 1024, float(user) + float(system), float(user)


class Bench:
    """One test bed, its files and the runs."""

    def __init__(self, root: str, a, b, runs: int, socat_block: int | None = None):
        self.root, self.a, self.b, self.runs = root, a, b, runs
        self.socat_options = ["-b", str(socat_block)] if socat_block else []
        self.inbox = os.path.join(root, "inbox")
        os.makedirs(self.inbox)
        self.port = PORT

    def next_port(self) -> int:
        """A fresh port per run, so no TIME_WAIT socket is in the way."""
        self.port += 1
        return self.port

    def home(self, who: str) -> str:
        """Huddle's data directory for who (kept across runs: peers stay pinned)."""
        path = os.path.join(self.root, "home-" + who)
        os.makedirs(path, exist_ok=True)
        return path

    def timed(self, argv: list[str], who: str) -> list[str]:
        """argv under GNU time, writing max RSS and CPU seconds to a file named after who."""
        return ["/usr/bin/time", "-f", "%M %U %S", "-o", os.path.join(self.root, f"usage-{who}"), *argv]

    def usage(self, who: str) -> tuple[int, float, float]:
        """Max RSS, CPU seconds and user CPU seconds of the last process timed as who."""
        return usage(os.path.join(self.root, f"usage-{who}"))

    def huddle(self, paths: list[str]) -> dict:
        """One huddle send of paths to a fresh huddle receive."""
        clear(self.inbox)
        a, b = self.a, self.b
        # Plain output, not --json: in a pipe it prints a progress line per 16 MiB instead of per MiB, so this
        # script's line matching does not take CPU from the programs it measures.
        common = ["--yes"]
        receiver = b.spawn(*self.timed([huddle_bin(), "receive", "--dir", self.inbox, "--count", str(len(paths)),
                                        "--name", "Bob", "--data-dir", self.home("b"), "--host", "bench-b",
                                        "--interface", b.ifname, *common], "receiver"), label="b:receive")
        receiver.wait_line(lambda l: l.startswith("Receiving into"), 20)
        start = time.monotonic()
        sender = a.spawn(*self.timed([huddle_bin(), "send", *paths, "--to", "Bob", "--name", "Ada", "--data-dir",
                                      self.home("a"), "--host", "bench-a", "--interface", a.ifname, *common],
                                     "sender"), label="a:send")
        name = os.path.basename(paths[-1])
        last = f"sent {name}: verified by the receiver"
        if os.path.isdir(paths[-1]):
            last = f"sent {name}/: "
        # Waiting for the exit, then finding the lines, keeps the matching out of the measured time.
        if sender.wait_exit(600) != 0 or receiver.wait_exit(30) != 0:
            raise RuntimeError(f"huddle failed\n{sender.output()}\n{receiver.output()}")
        end, _ = sender.wait_line_at(lambda l: l == last or (last.endswith("/: ") and l.startswith(last)), 5)
        offered, _ = receiver.wait_line_at(lambda l: l.startswith("? ") and "Accept?" in l, 5)
        assert len([n for n in os.listdir(self.inbox) if not n.startswith(".")]) == len(paths)
        (sender_rss, sender_cpu, sender_user), (receiver_rss, receiver_cpu, receiver_user) = (
            self.usage("sender"), self.usage("receiver"))
        return {"seconds": end - start, "data_seconds": end - offered, "sender_rss": sender_rss,
                "receiver_rss": receiver_rss, "cpu": sender_cpu + receiver_cpu, "user": sender_user + receiver_user}

    def socat(self, source: list[str], sink: list[str], tls: bool, tar_dir: str | None = None) -> float:
        """Seconds for one socat run (optionally tar in, tar out); the file-to-file runs note their CPU seconds
        in self.socat_cpu."""
        clear(self.inbox)
        a, b = self.a, self.b
        port = self.next_port()
        certs = f"cert={self.cert},key={self.key},verify=0" if tls else ""
        listen = f"OPENSSL-LISTEN:{port},reuseaddr,{certs}" if tls else f"TCP-LISTEN:{port},reuseaddr"
        connect = f"OPENSSL:{b.ipv4}:{port},verify=0" if tls else f"TCP:{b.ipv4}:{port}"
        if tar_dir:
            receiver = b.spawn("sh", "-c", f"socat {' '.join(self.socat_options)} -u {listen} - | tar -C {self.inbox} -xf -",
                               label="b:socat")
        else:
            receiver = b.spawn(*self.timed(["socat", *self.socat_options, "-u", listen, f"OPEN:{sink[0]},creat,trunc"],
                                           "socat-receiver"), label="b:socat")
        wait_until(lambda: listening(b, port), 10, 0.02, what="socat listening")
        start = time.monotonic()
        if tar_dir:
            sender = a.spawn("sh", "-c", f"tar -C {tar_dir} -cf - . | socat {' '.join(self.socat_options)} -u - {connect}",
                             label="a:socat")
        else:
            sender = a.spawn(*self.timed(["socat", *self.socat_options, "-u", f"OPEN:{source[0]}", connect],
                                         "socat-sender"), label="a:socat")
        if receiver.wait_exit(600) != 0 or sender.wait_exit(30) != 0:
            raise RuntimeError(f"socat failed\n{sender.output()}\n{receiver.output()}")
        elapsed = time.monotonic() - start
        if not tar_dir:
            (_, sender_cpu, sender_user), (_, receiver_cpu, receiver_user) = (
                self.usage("socat-sender"), self.usage("socat-receiver"))
            self.socat_cpu, self.socat_user = sender_cpu + receiver_cpu, sender_user + receiver_user
        return elapsed

    def wormhole(self, source: str) -> float:
        """Seconds for one wormhole send → receive through the local mailbox and relay."""
        clear(self.inbox)
        a, b = self.a, self.b
        servers = ["--relay-url", f"ws://{b.ipv4}:4000/v1", "--transit-helper", f"tcp:{b.ipv4}:4001"]
        code = f"{self.next_port() % 100 + 1}-huddle-bench"
        start = time.monotonic()
        sender = a.spawn("wormhole", *servers, "send", "--hide-progress", "--code", code, source,
                         label="a:wormhole send", merge_stderr=True)
        receiver = b.spawn("wormhole", *servers, "receive", "--accept-file", "--hide-progress", "-o",
                           os.path.join(self.inbox, "out.bin"), code, label="b:wormhole receive",
                           merge_stderr=True)
        if receiver.wait_exit(600) != 0 or sender.wait_exit(60) != 0:
            raise RuntimeError(f"wormhole failed\n{sender.output()}\n{receiver.output()}")
        return time.monotonic() - start

    def chat(self, source: str, messages: int) -> list[float]:
        """One-way latencies (ms) of chat messages sent while source goes to the other host."""
        clear(self.inbox)
        a, b = self.a, self.b
        server = b.spawn(peer_bench_bin(), "serve", *common(b, "Server", self.home("pb-b")), "--dir", self.inbox,
                         label="b:serve")
        server.wait_line(lambda l: '"ready"' in l, 20)
        client = a.spawn(peer_bench_bin(), "client", *common(a, "Client", self.home("pb-a")), "--to", "Server",
                         "--mode", "chat", "--file", source, "--count", str(messages), "--size", "100",
                         "--interval", "50", "--after", str(64 * MIB), label="a:client chat")
        client.wait_line(lambda l: '"mode"' in l, 300)
        server.wait_event(lambda e: e.get("event") == "received", 30)
        chats = [e for e in server.events() if e.get("event") == "chat" and 0 < e.get("completed", 0) < e["total"]]
        client.stop()
        server.stop()
        return [e["latency_ms"] for e in chats]

    def start_wormhole_servers(self) -> None:
        """Mailbox server and transit relay inside host b, on its test address only."""
        b = self.b
        b.spawn("twist", "wormhole-mailbox", f"--port=tcp:4000:interface={b.ipv4}",
                f"--channel-db={os.path.join(self.root, 'mailbox.sqlite')}", label="b:mailbox", merge_stderr=True)
        b.spawn("twist", "transitrelay", f"--port=tcp:4001:interface={b.ipv4}", label="b:relay",
                merge_stderr=True)
        wait_until(lambda: listening(b, 4000) and listening(b, 4001), 30, what="wormhole servers listening")

    def make_cert(self) -> None:
        """A throwaway self-signed P-256 certificate for socat's TLS."""
        self.key, self.cert = os.path.join(self.root, "key.pem"), os.path.join(self.root, "cert.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-nodes", "-keyout", self.key, "-out", self.cert, "-days", "1", "-subj", "/CN=bench"],
                       check=True, capture_output=True, timeout=30)


def median(values: list[float]) -> float:
    """Median of values."""
    return statistics.median(values)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="runs of each measurement (median printed)")
    parser.add_argument("--size-mib", type=int, default=1024, help="size of the big file")
    parser.add_argument("--files", type=int, default=1000, help="number of small files")
    parser.add_argument("--small-kib", type=int, default=10, help="size of each small file")
    parser.add_argument("--socat-block", type=int, help="socat's -b (bytes per read/write; socat's default 8192)")
    parser.add_argument("--messages", type=int, default=20, help="chat messages per chat run")
    parser.add_argument("--skip", action="append", default=[], choices=["wormhole", "small", "chat", "directory"],
                        help="leave a part out")
    args = parser.parse_args()
    reason = netns_available()
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2
    root = tempfile.mkdtemp(prefix="huddle-bench-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    tb = Testbed(k=2).start()
    try:
        a, b = tb[0], tb[1]
        bench = Bench(root, a, b, args.runs, args.socat_block)
        bench.make_cert()
        size = args.size_mib * MIB
        big = os.path.join(root, "big.bin")
        make_file(big, size)
        out = os.path.join(bench.inbox, "out.bin")
        print(f"binary: {huddle_bin()}; {args.size_mib} MiB file, {args.runs} runs each, medians", flush=True)
        huddle_runs, raw, tls, worm = [], [], [], []
        raw_cpu, tls_cpu, raw_user, tls_user = [], [], [], []
        for _ in range(args.runs):
            raw.append(bench.socat([big], [out], tls=False))
            raw_cpu.append(bench.socat_cpu)
            raw_user.append(bench.socat_user)
            tls.append(bench.socat([big], [out], tls=True))
            tls_cpu.append(bench.socat_cpu)
            tls_user.append(bench.socat_user)
            huddle_runs.append(bench.huddle([big]))
        if "wormhole" not in args.skip:
            bench.start_wormhole_servers()
            for _ in range(args.runs):
                worm.append(bench.wormhole(big))
        mibs = {
            "huddle": args.size_mib / median([r["seconds"] for r in huddle_runs]),
            "huddle data phase": args.size_mib / median([r["data_seconds"] for r in huddle_runs]),
            "socat raw TCP": args.size_mib / median(raw),
            "socat + OpenSSL TLS": args.size_mib / median(tls),
        }
        if worm:
            mibs["magic-wormhole (local mailbox + relay)"] = args.size_mib / median(worm)
        for name, value in mibs.items():
            print(f"  {name:40} {value:8.1f} MiB/s")
        targets = [("socat + OpenSSL TLS", 1.5), ("magic-wormhole (local mailbox + relay)", 5.0),
                   ("socat raw TCP", 0.5)]
        for name, target in targets:
            if name in mibs:
                print(f"  Huddle / {name}: {mibs['huddle'] / mibs[name]:.2f}× whole command, "
                      f"{mibs['huddle data phase'] / mibs[name]:.2f}× data phase (target ≥ {target}×)")
        rss_s = max(r["sender_rss"] for r in huddle_runs) / MIB
        rss_r = max(r["receiver_rss"] for r in huddle_runs) / MIB
        print(f"  peak memory (max RSS): sender {rss_s:.1f} MiB, receiver {rss_r:.1f} MiB (target < 64 MiB)",
              flush=True)
        cores = os.cpu_count() or 1
        gib = args.size_mib / 1024
        print(f"  CPU seconds per GiB, sender + receiver, and the CPU ceiling on {cores} cores:")
        for name, cpu, user in [
                ("huddle (whole command)", median([r["cpu"] for r in huddle_runs]),
                 median([r["user"] for r in huddle_runs])),
                ("socat raw TCP", median(raw_cpu), median(raw_user)),
                ("socat + OpenSSL TLS", median(tls_cpu), median(tls_user))]:
            # User time is the programs' own work; system time is mostly the kernel copying to sockets and files,
            # the same for every program, and the part a busy machine moves most.
            print(f"    {name:38} {cpu / gib:6.2f} s/GiB   ceiling {cores * 1024 * gib / cpu:8.1f} MiB/s   "
                  f"user {user / gib:5.2f} s/GiB")
        if "small" not in args.skip:
            small = os.path.join(root, "small")
            os.makedirs(small)
            paths = []
            for index in range(args.files):
                path = os.path.join(small, f"f{index:04}.bin")
                with open(path, "wb") as f:
                    f.write(os.urandom(args.small_kib * 1024))
                paths.append(path)
            many, tar_raw, tar_tls = [], [], []
            for _ in range(args.runs):
                tar_raw.append(bench.socat([], [], tls=False, tar_dir=small))
                tar_tls.append(bench.socat([], [], tls=True, tar_dir=small))
                many.append(bench.huddle(paths))
            n = args.files
            print(f"{n} files of {args.small_kib} KiB:")
            print(f"  huddle send (one command, {n} paths)     "
                  f"{n / median([r['seconds'] for r in many]):8.0f} files/s "
                  f"({n / median([r['data_seconds'] for r in many]):.0f}/s from the first offer; target ≥ 1,000)")
            print(f"  tar | socat raw TCP                      {n / median(tar_raw):8.0f} files/s")
            print(f"  tar | socat + OpenSSL TLS                {n / median(tar_tls):8.0f} files/s")
            rss_s = max(r["sender_rss"] for r in many) / MIB
            rss_r = max(r["receiver_rss"] for r in many) / MIB
            print(f"  peak memory (max RSS): sender {rss_s:.1f} MiB, receiver {rss_r:.1f} MiB")
        if "directory" not in args.skip:
            # The big file's bytes as a directory of four files: each is hashed while it is sent.
            tree = os.path.join(root, "tree")
            os.makedirs(tree)
            quarter = size // 4
            with open(big, "rb") as source:
                for index in range(4):
                    with open(os.path.join(tree, f"part{index}.bin"), "wb") as f:
                        f.write(source.read(quarter))
            trees, tar_tls = [], []
            for _ in range(args.runs):
                tar_tls.append(bench.socat([], [], tls=True, tar_dir=tree))
                trees.append(bench.huddle([tree]))
            total = 4 * quarter / MIB
            whole = total / median([r["seconds"] for r in trees])
            print(f"a directory of 4 files, {total:.0f} MiB in all:")
            print(f"  huddle send DIR                          {whole:8.1f} MiB/s "
                  f"({total / median([r['data_seconds'] for r in trees]):.1f} from the offer; "
                  f"offer after {median([r['seconds'] - r['data_seconds'] for r in trees]):.2f} s)")
            print(f"  tar | socat + OpenSSL TLS                {total / median(tar_tls):8.1f} MiB/s", flush=True)
        if "chat" not in args.skip:
            latencies = sorted(x for _ in range(args.runs) for x in bench.chat(big, args.messages))
            q = lambda f: latencies[min(len(latencies) - 1, int(len(latencies) * f))]  # noqa: E731
            print(f"chat during the {args.size_mib} MiB transfer ({len(latencies)} messages sent mid-transfer): "
                  f"median {q(0.5):.1f} ms, p90 {q(0.9):.1f} ms, max {latencies[-1]:.1f} ms "
                  f"({sum(x < 50 for x in latencies)}/{len(latencies)} under 50 ms)", flush=True)
    finally:
        tb.close()
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
