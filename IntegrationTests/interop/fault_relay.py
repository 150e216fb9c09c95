#!/usr/bin/env python3
"""A userspace relay that delays, jitters, reorders and duplicates traffic between two test hosts (issue 7).

`tc netem` is not available on these machines, so the network-fault tests route a peer's traffic through this
relay, run on a third test host (an nftables DNAT rule on the dialling host sends its packets here):

    python3 fault_relay.py --tcp 7101=10.x.y.2:7001 --udp 7201=10.x.y.2:40123 \
        --delay-ms 100 --jitter-ms 40 [--split] [--reorder 0.05] [--duplicate 0.05] [--seconds 600]

TCP (`--tcp LISTEN=HOST:PORT`, repeatable): each accepted connection is relayed to HOST:PORT. Bytes of a stream
are delivered `delay ± jitter` after they arrive, never out of order (a TCP stream cannot be reordered; the kernel
reorders segments, not bytes); with `--split` each chunk read is cut at random points and the pieces are sent with
their own delays, so the receiver sees frames cut anywhere. At most 4 MiB wait per direction (then reading pauses).

UDP (`--udp LISTEN=HOST:PORT`, repeatable): datagrams from the client go to HOST:PORT from a socket of their own,
answers go back to the client. Each datagram is delayed `delay ± jitter` independently (so they overtake each
other), held back 20–60 ms more with probability --reorder, and sent twice (the copy 1–30 ms later) with
probability --duplicate.

Prints one JSON line `{"event":"ready",...}` when listening, and on SIGTERM/SIGINT or after --seconds one JSON
line of counters (`{"event":"stats",...}`), then exits. Everything is bounded: --seconds caps the run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import signal
import socket
import sys
import time

MAX_QUEUED = 4 << 20
STATS = {"tcp_connections": 0, "tcp_bytes": 0, "tcp_pieces": 0, "udp_in": 0, "udp_out": 0, "udp_duplicated": 0,
         "udp_held_back": 0}


def emit(obj: dict) -> None:
    print(json.dumps(obj, sort_keys=True), flush=True)


def endpoint(spec: str) -> tuple[int, str, int]:
    """`LISTEN=HOST:PORT` → (listen port, host, port)."""
    listen, target = spec.split("=", 1)
    host, port = target.rsplit(":", 1)
    return int(listen), host, int(port)


class Shaper:
    """Delivery times: `delay ± jitter` after now, optionally never earlier than the last one (streams)."""

    def __init__(self, args: argparse.Namespace, rng: random.Random):
        self.delay, self.jitter, self.rng = args.delay_ms / 1000, args.jitter_ms / 1000, rng

    def after(self) -> float:
        return max(0.0, self.delay + self.rng.uniform(-self.jitter, self.jitter))


async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, shaper: Shaper, split: bool) -> None:
    """Copies one direction of a stream: pieces in order, each at its delivery time; EOF passes through."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue()
    queued = [0]
    room = asyncio.Event()
    room.set()
    dead = asyncio.Event()

    async def deliver() -> None:
        try:
            while True:
                at, piece = await queue.get()
                if piece is None:
                    break
                await asyncio.sleep(max(0.0, at - loop.time()))
                writer.write(piece)
                await writer.drain()
                queued[0] -= len(piece)
                if queued[0] < MAX_QUEUED:
                    room.set()
            if writer.can_write_eof():
                writer.write_eof()
        finally:
            dead.set()  # the other end is gone: stop reading too
            room.set()

    delivery = asyncio.create_task(deliver())
    last = 0.0
    try:
        while True:
            await room.wait()
            if dead.is_set():
                break
            chunk = await reader.read(65536)
            if not chunk:
                break
            pieces = [chunk]
            if split and len(chunk) > 1:
                cuts = sorted(shaper.rng.sample(range(1, len(chunk)), min(3, len(chunk) - 1)))
                pieces = [chunk[i:j] for i, j in zip([0] + cuts, cuts + [len(chunk)])]
            for piece in pieces:
                last = max(last, loop.time() + shaper.after())
                queue.put_nowait((last, piece))
                queued[0] += len(piece)
                STATS["tcp_bytes"] += len(piece)
                STATS["tcp_pieces"] += 1
            if queued[0] >= MAX_QUEUED:
                room.clear()
    except (ConnectionError, OSError):
        pass
    queue.put_nowait((0.0, None))
    try:
        await delivery
    except (ConnectionError, OSError):
        pass


def tcp_handler(host: str, port: int, shaper: Shaper, split: bool):
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        STATS["tcp_connections"] += 1
        try:
            up_reader, up_writer = await asyncio.open_connection(host, port)
        except OSError:
            writer.close()
            return
        pumps = {asyncio.create_task(pump(reader, up_writer, shaper, split)),
                 asyncio.create_task(pump(up_reader, writer, shaper, split))}
        # When one direction ends, the other gets a bounded grace to finish, then both sockets close.
        _, rest = await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        if rest:
            await asyncio.wait(rest, timeout=2 * (shaper.delay + shaper.jitter) + 5)
        for w in (writer, up_writer):
            w.close()
        for task in rest:
            task.cancel()
    return handle


class UDPSide(asyncio.DatagramProtocol):
    """One socket of a UDP relay; `forward` sends what it receives on to the other side."""

    def __init__(self, forward):
        self.forward, self.transport = forward, None

    def connection_made(self, transport) -> None:
        self.transport = transport

    def datagram_received(self, data: bytes, addr) -> None:
        self.forward(data, addr)


async def udp_relay(listen: int, host: str, port: int, shaper: Shaper, args: argparse.Namespace) -> None:
    loop = asyncio.get_running_loop()
    client: list = [None]

    def schedule(transport, data: bytes, addr) -> None:
        STATS["udp_in"] += 1
        delay = shaper.after()
        if shaper.rng.random() < args.reorder:
            delay += shaper.rng.uniform(0.02, 0.06)
            STATS["udp_held_back"] += 1
        copies = [delay]
        if shaper.rng.random() < args.duplicate:
            copies.append(delay + shaper.rng.uniform(0.001, 0.03))
            STATS["udp_duplicated"] += 1
        for d in copies:
            loop.call_later(d, send, transport, data, addr)

    def send(transport, data: bytes, addr) -> None:
        if addr is not None and transport is not None:
            transport.sendto(data, addr)
            STATS["udp_out"] += 1

    def from_client(data: bytes, addr) -> None:
        client[0] = addr
        schedule(upstream.transport, data, (host, port))

    def from_target(data: bytes, addr) -> None:
        schedule(downstream.transport, data, client[0])

    downstream = UDPSide(from_client)
    upstream = UDPSide(from_target)
    for side, bind_port in ((downstream, listen), (upstream, 0)):
        transport, _ = await loop.create_datagram_endpoint(lambda side=side: side,
                                                           local_addr=("0.0.0.0", bind_port))
        transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)


async def main(args: argparse.Namespace) -> None:
    shaper = Shaper(args, random.Random(args.seed))
    servers = []
    for spec in args.tcp:
        listen, host, port = endpoint(spec)
        servers.append(await asyncio.start_server(tcp_handler(host, port, shaper, args.split), "0.0.0.0", listen))
    for spec in args.udp:
        await udp_relay(*endpoint(spec), shaper, args)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    emit({"event": "ready", "tcp": args.tcp, "udp": args.udp, "delay_ms": args.delay_ms,
          "jitter_ms": args.jitter_ms, "seed": args.seed})
    try:
        await asyncio.wait_for(stop.wait(), args.seconds)
    except asyncio.TimeoutError:
        pass
    emit({"event": "stats", **STATS})
    for server in servers:
        server.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tcp", action="append", default=[], metavar="LISTEN=HOST:PORT")
    parser.add_argument("--udp", action="append", default=[], metavar="LISTEN=HOST:PORT")
    parser.add_argument("--delay-ms", type=float, default=100)
    parser.add_argument("--jitter-ms", type=float, default=0)
    parser.add_argument("--split", action="store_true")
    parser.add_argument("--reorder", type=float, default=0.0)
    parser.add_argument("--duplicate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=int(time.time_ns() % 1_000_000))
    parser.add_argument("--seconds", type=float, default=600)
    asyncio.run(main(parser.parse_args()))
    sys.exit(0)
