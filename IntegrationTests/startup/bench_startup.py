#!/usr/bin/env python3
"""How long `huddle` takes to start: `huddle --version` and `huddle id` (an existing key), each run many times in
a row, with a bare environment (no toolchain on PATH). Prints the median, the fastest and the slowest run, and,
with --baseline, the same for another binary and the ratio of the medians (BENCHMARKS.md, "Start-up").

    python3 IntegrationTests/startup/bench_startup.py usr/bin/huddle [--runs 31] [--baseline OTHER]

A benchmark, not a test: it asserts nothing about speed. The package's own figure comes from the binary unpacked
from the release package (`dpkg-deb -x dist/huddle_*.deb root`).
"""

import argparse
import statistics
import subprocess
import tempfile
import time


def timings(binary: str, arguments: list[str], runs: int, home: str) -> list[float]:
    environment = {"PATH": "/usr/bin:/bin", "HOME": home, "HUDDLE_HOME": f"{home}/huddle", "LANG": "C.UTF-8"}
    subprocess.run([binary, "id"], env=environment, capture_output=True, check=True)  # the key exists from here on
    elapsed = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([binary, *arguments], env=environment, capture_output=True, check=True)
        elapsed.append((time.perf_counter() - started) * 1000)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--baseline")
    options = parser.parse_args()
    for arguments in (["--version"], ["id"]):
        line = f"huddle {' '.join(arguments):<10}"
        medians = []
        for binary in [options.binary] + ([options.baseline] if options.baseline else []):
            with tempfile.TemporaryDirectory() as home:
                runs = timings(binary, arguments, options.runs, home)
            medians.append(statistics.median(runs))
            line += f"  {binary}: median {medians[-1]:.1f} ms (fastest {min(runs):.1f}, slowest {max(runs):.1f})"
        if len(medians) == 2:
            line += f"  ratio {medians[0] / medians[1]:.2f}"
        print(line)


if __name__ == "__main__":
    main()
