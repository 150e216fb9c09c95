#!/usr/bin/env python3
"""Clipboard benchmarks for `huddle pb`, against xclip on a private Xvfb.

Prints:
  1. latency from an xclip copy to `huddle pb watch`'s line (median, p99), against a 1-second poll (the seed's way);
  2. time to read a 10 MiB PNG from the clipboard with `huddle pb paste`, against `xclip -o`;
  3. CPU time used by an idle `huddle pb watch` over --idle seconds.

    swift build -c release --product huddle
    HUDDLE_BIN=.build/release/huddle python3 IntegrationTests/pasteboard/bench.py [--rounds 50] [--idle 60]

Needs Xvfb and xclip. Every process started here is stopped by its pid.
"""
import argparse
import os
import socket
import statistics
import subprocess
import sys
import threading
import time

HUDDLE = os.environ.get("HUDDLE_BIN", ".build/release/huddle")


def start_xvfb():
    """Xvfb on a display no one uses, ready for clients."""
    base = 500 + os.getpid() % 1000
    for number in range(base, base + 50):
        if os.path.exists(f"/tmp/.X{number}-lock") or os.path.exists(f"/tmp/.X11-unix/X{number}"):
            continue
        proc = subprocess.Popen(["Xvfb", f":{number}", "-nolisten", "tcp", "-noreset"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with socket.socket(socket.AF_UNIX) as probe:
                    probe.connect(f"/tmp/.X11-unix/X{number}")
                return proc, f":{number}"
            except OSError:
                time.sleep(0.01)
        stop(proc)
    sys.exit("no free display for Xvfb")


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def xclip_owner(env, data, target="UTF8_STRING"):
    """xclip serving `data` in the foreground (-quiet), so its pid is the owner."""
    proc = subprocess.Popen(["xclip", "-selection", "clipboard", "-quiet", "-t", target, "-i"],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    proc.stdin.write(data)
    proc.stdin.close()
    return proc


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def watch_latency(env, rounds):
    watch = subprocess.Popen([HUDDLE, "pb", "watch", "--json"], stdout=subprocess.PIPE, env=env, bufsize=0)
    try:
        time.sleep(0.5)
        latencies = []
        for index in range(rounds):
            start = time.perf_counter()
            owner = xclip_owner(env, f"round {index}".encode())
            line = watch.stdout.readline()
            latencies.append((time.perf_counter() - start) * 1000)
            assert f"round {index}".encode() in line, line
            stop(owner)
            watch.stdout.readline()  # the owner went away
            time.sleep(0.02)
        return latencies
    finally:
        stop(watch)


def poll_latency(env, rounds):
    """The seed's approach: look once a second whether the clipboard changed (here: whether its text did)."""
    detected = {}  # text → when the poller first saw it
    stopping = threading.Event()

    def text():
        result = subprocess.run(["xclip", "-selection", "clipboard", "-o"], capture_output=True, env=env)
        return result.stdout

    def poller():
        while not stopping.wait(1.0):
            now = text()
            if now and now not in detected:
                detected[now] = time.perf_counter()

    thread = threading.Thread(target=poller)
    thread.start()
    latencies = []
    try:
        for index in range(rounds):
            time.sleep(0.137 * (index % 7))  # copy at different phases of the poll
            expected = f"poll {index}".encode()
            start = time.perf_counter()
            owner = xclip_owner(env, expected)
            deadline = time.monotonic() + 5
            while expected not in detected and time.monotonic() < deadline:
                time.sleep(0.005)
            latencies.append((detected[expected] - start) * 1000)
            stop(owner)
    finally:
        stopping.set()
        thread.join()
    return latencies


def read_time(env, rounds, size):
    payload = b"\x89PNG\r\n\x1a\n" + os.urandom(size - 8)
    owner = xclip_owner(env, payload, target="image/png")
    try:
        time.sleep(0.3)
        timings = {"huddle pb paste": [], "xclip -o": []}
        commands = {
            "huddle pb paste": [HUDDLE, "pb", "paste", "--type", "image/png"],
            "xclip -o": ["xclip", "-selection", "clipboard", "-o", "-t", "image/png"],
        }
        for name, command in commands.items():  # once each untimed, checking the bytes
            assert subprocess.run(command, capture_output=True, env=env).stdout == payload, name
        commands["huddle --help (start-up only)"] = [HUDDLE, "--help"]
        commands["xclip -version (start-up only)"] = ["xclip", "-version"]
        timings = {name: [] for name in commands}
        for _ in range(rounds):
            for name, command in commands.items():
                start = time.perf_counter()
                subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
                timings[name].append((time.perf_counter() - start) * 1000)
        return timings
    finally:
        stop(owner)


def idle_cpu(env, seconds):
    watch = subprocess.Popen([HUDDLE, "pb", "watch"], stdout=subprocess.DEVNULL, env=env)
    try:
        time.sleep(1.0)

        def ticks():
            with open(f"/proc/{watch.pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])  # utime + stime (proc(5) fields 14, 15)

        before = ticks()
        time.sleep(seconds)
        return (ticks() - before) / os.sysconf("SC_CLK_TCK")
    finally:
        stop(watch)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=50, help="copies for the latency test (default 50)")
    parser.add_argument("--poll-rounds", type=int, default=10, help="copies for the 1-second poll (default 10)")
    parser.add_argument("--read-rounds", type=int, default=10, help="reads of the 10 MiB image (default 10)")
    parser.add_argument("--idle", type=float, default=60, help="seconds of idle watching (default 60)")
    args = parser.parse_args()
    xvfb, display = start_xvfb()
    env = dict(os.environ, DISPLAY=display)
    try:
        events = watch_latency(env, args.rounds)
        polled = poll_latency(env, args.poll_rounds)
        print(f"copy → event latency (xclip start to watch line), {len(events)} copies:")
        print(f"  huddle pb watch (XFixes)   median {statistics.median(events):7.1f} ms   "
              f"p99 {percentile(events, 0.99):7.1f} ms")
        print(f"  1-second poll              median {statistics.median(polled):7.1f} ms   "
              f"p99 {percentile(polled, 0.99):7.1f} ms   ({len(polled)} copies)")
        reads = read_time(env, args.read_rounds, 10 << 20)
        print("10 MiB PNG read from the clipboard (process start included), median of "
              f"{args.read_rounds}:")
        for name, values in reads.items():
            print(f"  {name:31s}  {statistics.median(values):7.1f} ms   (min {min(values):.1f})")
        ratio = statistics.median(reads["huddle pb paste"]) / statistics.median(reads["xclip -o"])
        print(f"  huddle / xclip                   {ratio:7.2f}×")
        cpu = idle_cpu(env, args.idle)
        print(f"idle huddle pb watch over {args.idle:.0f} s: {cpu:.3f} s CPU ({cpu / args.idle * 100:.3f} %)")
    finally:
        stop(xvfb)


if __name__ == "__main__":
    main()
