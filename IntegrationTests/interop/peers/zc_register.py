#!/usr/bin/env python3
"""Register one service with python-zeroconf and keep it until SIGTERM/quit/lifetime.

  zc_register.py NAME TYPE PORT [k=v|flag ...] [--server LABEL] [--addr IP ...]
                 [--no-rename] [--lifetime S] [--ip all|v4|v6] [--instances N]

stdout (JSON lines): {"event":"registered","name":..,"type":..,"port":..,"host":..},
{"event":"updated",...} after a stdin `txt k=v ...` / `port N`, {"event":"unregistered"},
or {"event":"error","error":..}. stdin commands: `txt k=v ...`, `port N`, `quit`.
Without --addr, all non-loopback addresses of the namespace are published.
"""

import argparse
import asyncio
import ipaddress
import os
import signal
import sys
import threading

import ifaddr

from zc_common import IP_VERSIONS, emit, full_type, instance_of, parse_txt_args, short_type
from zeroconf import InterfaceChoice, NonUniqueNameException
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf


def local_addresses() -> list[str]:
    """All IPv4 and IPv6 addresses of this namespace except loopback (v4 first)."""
    v4, v6 = [], []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, tuple):
                if ip.ip[0] != "::1":
                    v6.append(ip.ip[0].split("%")[0])
            elif not ip.ip.startswith("127."):
                v4.append(ip.ip)
    return v4 + v6


def args_parser() -> argparse.ArgumentParser:
    """Command-line interface."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("name")
    p.add_argument("type")
    p.add_argument("port", type=int)
    p.add_argument("txt", nargs="*")
    p.add_argument("--server", default=None, help="host label (default zc-<pid>)")
    p.add_argument("--addr", action="append", default=None)
    p.add_argument("--no-rename", action="store_true")
    p.add_argument("--lifetime", type=float, default=300)
    p.add_argument("--ip", choices=IP_VERSIONS, default="all")
    p.add_argument("--instances", type=int, default=1,
                   help="register N services 'NAME 1'..'NAME N' (ports PORT..PORT+N-1)")
    return p


def start_stdin_reader(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue) -> None:
    """Forward stdin lines into queue (EOF is sent as None)."""
    def pump():
        """Thread body: stdin lines -> queue."""
        for line in sys.stdin:
            loop.call_soon_threadsafe(queue.put_nowait, line.strip())
        loop.call_soon_threadsafe(queue.put_nowait, None)
    threading.Thread(target=pump, daemon=True).start()


async def register(aiozc: AsyncZeroconf, info: AsyncServiceInfo, rename: bool) -> bool:
    """Probe + announce info; False (and an error line) on NonUniqueNameException."""
    try:
        await (await aiozc.async_register_service(info, allow_name_change=rename))
        return True
    except NonUniqueNameException:
        emit(event="error", error="NonUniqueNameException", name=info.name)
        return False


async def main() -> int:
    """Register, serve stdin commands, unregister with goodbyes on exit."""
    a = args_parser().parse_args()
    type_full = full_type(a.type)
    server = (a.server or f"zc-{os.getpid()}") + ".local."
    addrs = [str(ipaddress.ip_address(x)) for x in (a.addr or local_addresses())]
    names = [a.name] if a.instances == 1 else [f"{a.name} {i}" for i in range(1, a.instances + 1)]
    infos = [AsyncServiceInfo(type_full, f"{n}.{type_full}", port=a.port + i, server=server,
                              properties=parse_txt_args(a.txt), parsed_addresses=addrs)
             for i, n in enumerate(names)]
    info = infos[0]  # the one stdin commands change
    aiozc = AsyncZeroconf(interfaces=InterfaceChoice.All, ip_version=IP_VERSIONS[a.ip])
    ok = await asyncio.gather(*(register(aiozc, i, not a.no_rename) for i in infos))
    if not all(ok):
        await aiozc.async_close()
        return 1

    def describe(event, info=info):
        """Emit the current registration."""
        emit(event=event, name=instance_of(info.name, type_full), type=short_type(type_full),
             port=info.port, host=server.rstrip("."), addresses=addrs)
    for i in infos:
        describe("registered", i)

    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, queue.put_nowait, None)
    start_stdin_reader(loop, queue)
    deadline = loop.time() + a.lifetime
    while True:
        try:
            cmd = await asyncio.wait_for(queue.get(), max(0.0, deadline - loop.time()))
        except asyncio.TimeoutError:
            cmd = None
        if cmd is None or cmd == "quit":
            break
        verb, _, rest = cmd.partition(" ")
        if verb == "txt":
            info._set_properties(parse_txt_args(rest.split()))  # no public setter
        elif verb == "port":
            info.port = int(rest)
        else:
            continue
        await (await aiozc.async_update_service(info))
        describe("updated")
    goodbyes = [await aiozc.async_unregister_service(i) for i in infos]
    await asyncio.gather(*goodbyes)
    emit(event="unregistered", name=instance_of(info.name, type_full))
    await aiozc.async_close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
