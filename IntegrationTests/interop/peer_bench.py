"""Run `huddle-peer-bench` inside test hosts (shared by the session benchmark and the datagram test).

Binary: $HUDDLE_PEER_BENCH, else next to $HUDDLE_BIN, else <repo>/.build/debug/huddle-peer-bench.
"""

from __future__ import annotations

import json
import os

from huddle_cli import huddle_bin


def peer_bench_bin() -> str:
    """Path of the huddle-peer-bench binary."""
    if os.environ.get("HUDDLE_PEER_BENCH"):
        return os.environ["HUDDLE_PEER_BENCH"]
    return os.path.join(os.path.dirname(huddle_bin()), "huddle-peer-bench")


def common(host, name: str, home: str) -> list[str]:
    """Options every session command takes inside a test host."""
    return ["--name", name, "--data-dir", home, "--interface", host.ifname, "--host", f"pb-{host.letter}"]


def serve(host, name: str, home: str, port: int | None = None):
    """Start `serve` in host (on `port`, else any free one) and wait until it is ready."""
    extra = ["--port", str(port)] if port is not None else []
    proc = host.spawn(peer_bench_bin(), "serve", *common(host, name, home), *extra, label=f"{host.letter}:serve")
    proc.wait_line(lambda l: '"ready"' in l, 20)
    return proc


def client(host, name: str, home: str, to: str, mode: str, timeout: float = 120, **options) -> dict:
    """Run one `client` measurement in host and return its JSON result."""
    extra = []
    for key, value in options.items():
        extra += [f"--{key}", str(value)]
    proc = host.spawn(peer_bench_bin(), "client", *common(host, name, home), "--to", to, "--mode", mode,
                      *extra, label=f"{host.letter}:client {mode}")
    line = proc.wait_line(lambda l: l.startswith("{") and '"mode"' in l, timeout)
    proc.wait_exit(10)
    return json.loads(line)
