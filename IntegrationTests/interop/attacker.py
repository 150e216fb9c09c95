#!/usr/bin/env python3
"""A hostile host for the robustness tests (issue 7), run inside a test host against one target address.

    python3 attacker.py --target 10.x.y.2 --tcp PORT --udp PORT [--udp PORT ...] --seconds 20

First, if asked: --burst connections opened at once (as fast as the kernel takes them) and held 5 s, and
--stalled connections that send a real TLS ClientHello and then neither answer nor read (a handshake stopped
halfway, a peer that never reads). Then for --seconds, at the same time:
- holds --idle TCP connections open that send nothing (re-opening those the target closes);
- drips one byte a second on --drip more;
- opens --garbage connections that each send 4 KiB of random bytes (one with a frame header declaring 4 GiB);
- sends --datagrams random UDP datagrams (1–1,400 bytes) to each --udp port, spread over the time;
- opens --churn TCP connections a second and closes each a tick later (a connect flood).
Every count and the time are bounded; it prints one JSON line with what it did and exits.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import ssl
import time


def connect(target: str, port: int) -> socket.socket | None:
    """A non-blocking TCP connection, or None when the target refuses or the attempt fails."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect((target, port))
    except BlockingIOError:
        pass
    except OSError:
        s.close()
        return None
    return s


def alive(s: socket.socket) -> bool:
    """Whether the peer has not closed s (a read of 0 bytes or an error means closed)."""
    try:
        data = s.recv(4096)
        return data != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


def closed(s: socket.socket) -> bool:
    """Whether the peer has closed s: drains what it sent; end of stream or an error means closed."""
    s.setblocking(False)
    try:
        while True:
            if s.recv(65536) == b"":
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def client_hello() -> bytes:
    """The first flight of a real TLS client (Python's ssl through a memory BIO)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing)
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


def burst(target: str, port: int, count: int, stats: dict) -> list[socket.socket]:
    """count connections started back to back; returns them (connected or still connecting)."""
    opened = []
    for _ in range(count):
        s = connect(target, port)
        if s is not None:
            opened.append(s)
    stats["burst_started"] = len(opened)
    return opened


def stalled(target: str, port: int, count: int, stats: dict) -> list[socket.socket]:
    """count connections that send a ClientHello and then go quiet, with a tiny receive buffer, never reading."""
    hello, held = client_hello(), []
    for _ in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        s.settimeout(2)
        try:
            s.connect((target, port))
            s.sendall(hello)
            held.append(s)
        except OSError:
            s.close()
    stats["stalled_handshakes"] = len(held)
    return held


def churn(target: str, port: int, opened: list[socket.socket], due: int, stats: dict) -> list[socket.socket]:
    """Closes the connections opened a tick ago (counting those the kernel had connected) and opens up to `due`
    new ones; returns the new ones."""
    for s in opened:
        if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
            try:
                s.getpeername()
                stats["churn_established"] += 1
            except OSError:
                pass
        s.close()
    fresh = []
    for _ in range(due):
        s = connect(target, port)
        stats["churn_opened"] += 1
        if s is not None:
            fresh.append(s)
    return fresh


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--target", required=True)
    p.add_argument("--tcp", type=int, required=True)
    p.add_argument("--udp", type=int, action="append", default=[])
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--idle", type=int, default=300)
    p.add_argument("--drip", type=int, default=20)
    p.add_argument("--garbage", type=int, default=50)
    p.add_argument("--datagrams", type=int, default=2000)
    p.add_argument("--burst", type=int, default=0)
    p.add_argument("--stalled", type=int, default=0)
    p.add_argument("--churn", type=int, default=0, help="connections opened (and closed) per second")
    a = p.parse_args()
    rng = random.Random(7)
    stats = {"connects": 0, "closed_by_target": 0, "garbage_sent": 0, "datagrams_sent": 0, "drip_bytes": 0,
             "churn_opened": 0, "churn_established": 0}
    if a.burst:
        held = burst(a.target, a.tcp, a.burst, stats)
        time.sleep(5)
        stats["burst_closed_by_target"] = sum(1 for s in held if closed(s))
        for s in held:
            s.close()
    quiet = stalled(a.target, a.tcp, a.stalled, stats) if a.stalled else []
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    idle: list[socket.socket] = []
    drip: list[socket.socket] = []
    started = time.monotonic()
    end = started + a.seconds
    churned: list[socket.socket] = []
    garbage_left = a.garbage
    per_tick = max(1, a.datagrams // max(1, int(a.seconds * 10)))
    datagrams_left = {port: a.datagrams for port in a.udp}
    last_drip = 0.0
    while time.monotonic() < end:
        # Keep the idle and drip pools full.
        for pool, size in ((idle, a.idle), (drip, a.drip)):
            kept = [s for s in pool if alive(s) or s.close()]
            stats["closed_by_target"] += len(pool) - len(kept)
            pool[:] = kept
            while len(pool) < size:
                s = connect(a.target, a.tcp)
                if s is None:
                    break
                stats["connects"] += 1
                pool.append(s)
        # Garbage: a few connections per tick, each 4 KiB of random bytes; the first declares a 4 GiB frame.
        for _ in range(min(garbage_left, 5)):
            payload = bytes(rng.getrandbits(8) for _ in range(4096))
            if garbage_left == a.garbage:
                payload = bytes([1, 1, 0, 0, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF]) + payload
            garbage_left -= 1
            try:
                with socket.create_connection((a.target, a.tcp), timeout=2) as s:
                    s.sendall(payload)
                    stats["garbage_sent"] += len(payload)
            except OSError:
                pass  # refused or closed by the target's admission limits: also a valid outcome
        for port in a.udp:
            for _ in range(min(per_tick, datagrams_left[port])):
                udp.sendto(os.urandom(rng.randint(1, 1400)), (a.target, port))
                datagrams_left[port] -= 1
                stats["datagrams_sent"] += 1
        if time.monotonic() - last_drip >= 1:
            last_drip = time.monotonic()
            for s in drip:
                try:
                    s.send(bytes([rng.getrandbits(8)]))
                    stats["drip_bytes"] += 1
                except OSError:
                    pass
        if a.churn:
            # Catch up to churn × elapsed, at most a fifth of a second's worth per tick.
            due = min(int(a.churn * (time.monotonic() - started)) - stats["churn_opened"], a.churn // 5)
            churned = churn(a.target, a.tcp, churned, max(0, due), stats)
        time.sleep(0.1 if not a.churn else 0.02)
    for s in churned:
        s.close()
    stats["seconds"] = round(time.monotonic() - started, 2)
    stats["stalled_closed_by_target"] = sum(1 for s in quiet if closed(s))
    for s in idle + drip + quiet:
        s.close()
    print(json.dumps({"event": "done", **stats}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
