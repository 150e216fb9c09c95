#!/usr/bin/env python3
"""Stand-in for the `huddle` CLI built on python-zeroconf -- for checking the harness only.

  HUDDLE_BIN=IntegrationTests/interop/peers/fake_huddle.py python3 -m pytest IntegrationTests/interop -k huddle

Implements the JSON contract of `huddle discover` / `huddle advertise` closely enough
to exercise every Huddle test; known differences (so those tests fail here, by design):
legacy-unicast replies carry full TTLs (python-zeroconf behaviour), instance names
containing '.' are split into several labels on the wire (python-zeroconf's write_name
splits on dots, so avahi-browse drops `My.Printer ...`), interface/address changes
are not followed (test_huddle_network_change), --interface is accepted but not
applied, and conflicts are only noticed when the name is already in python-zeroconf's
cache.
"""

import argparse
import asyncio
import signal
import socket
import sys
import threading

import ifaddr
from zc_browse import snapshot
from zc_common import emit, full_type, instance_of, parse_txt_args, short_type
from zc_register import local_addresses
from zeroconf import InterfaceChoice, IPVersion, NonUniqueNameException, ServiceStateChange
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

TYPES = "_services._dns-sd._udp.local."


def first_interface() -> str:
    """Name of the first non-loopback interface (reported as "interface")."""
    names = [a.nice_name for a in ifaddr.get_adapters() if a.nice_name != "lo"]
    return names[0] if names else "lo"


def scoped(addr: str) -> str:
    """'fe80::1%2' -> 'fe80::1%veth-a'."""
    ip, pct, scope = addr.partition("%")
    if pct and scope.isdigit():
        return f"{ip}%{socket.if_indextoname(int(scope))}"
    return addr


def ip_version(a) -> IPVersion:
    """--ipv4 / --ipv6 / both."""
    return IPVersion.V4Only if a.ipv4 else IPVersion.V6Only if a.ipv6 else IPVersion.All


async def discover(a) -> int:
    """Browse a type (or the type enumeration) and print contract events."""
    aiozc = AsyncZeroconf(interfaces=InterfaceChoice.All, ip_version=ip_version(a))
    done, added, iface = asyncio.Event(), [0], first_interface()

    async def handle(type_full, name, state):
        """Print one browse event (resolving added/updated instances)."""
        if type_full == TYPES:
            if state is ServiceStateChange.Added:
                emit(event="type", type=short_type(name))
            return
        if state is ServiceStateChange.Removed:
            emit(event="removed", name=instance_of(name, type_full), type=short_type(type_full))
            return
        info = AsyncServiceInfo(type_full, name)
        await info.async_request(aiozc.zeroconf, 3000)
        s = snapshot(info, type_full)
        s["addresses"] = [scoped(x) for x in s["addresses"]]
        emit(event="added" if state is ServiceStateChange.Added else "updated", domain="local",
             interface=iface, **s)
        if state is ServiceStateChange.Added:
            added[0] += 1
            if a.count and added[0] >= a.count:
                done.set()

    def on_change(zeroconf, service_type, name, state_change):
        """ServiceBrowser handler."""
        asyncio.ensure_future(handle(service_type, name, state_change))
    sb = AsyncServiceBrowser(aiozc.zeroconf, full_type(a.type) if a.type else TYPES,
                             handlers=[on_change])
    try:
        await asyncio.wait_for(done.wait(), a.timeout)
    except asyncio.TimeoutError:
        pass
    await sb.async_cancel()
    await aiozc.async_close()
    return 0


async def advertise(a) -> int:
    """Register (renaming 'Name (n)' on conflicts) until SIGTERM/SIGINT/quit."""
    type_full = full_type(a.type)
    host = (a.host or "fake-huddle") + ".local."
    aiozc = AsyncZeroconf(interfaces=InterfaceChoice.All, ip_version=IPVersion.All)
    name, n = a.name, 1
    while True:
        info = AsyncServiceInfo(type_full, f"{name}.{type_full}", port=a.port, server=host,
                                properties=parse_txt_args(a.txt),
                                parsed_addresses=local_addresses())
        try:
            await (await aiozc.async_register_service(info))
            break
        except NonUniqueNameException:
            n += 1
            new = f"{a.name} ({n})"
            emit(event="renamed", **{"from": name, "to": new})
            name = new
    emit(event="registered", name=name, type=short_type(type_full), port=a.port,
         host=host.rstrip("."))
    loop, queue = asyncio.get_running_loop(), asyncio.Queue()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, queue.put_nowait, "quit")
    if a.control:
        def pump():
            """Forward stdin lines to the queue."""
            for line in sys.stdin:
                loop.call_soon_threadsafe(queue.put_nowait, line.strip())
        threading.Thread(target=pump, daemon=True).start()
    while (cmd := await queue.get()) != "quit":
        verb, _, rest = cmd.partition(" ")
        if verb == "txt":
            info._set_properties(parse_txt_args(rest.split()))
        elif verb == "port":
            info.port = int(rest)
        else:
            continue
        await (await aiozc.async_update_service(info))
    await (await aiozc.async_unregister_service(info))
    await aiozc.async_close()
    return 0


def main() -> int:
    """Parse the huddle-like command line."""
    p = argparse.ArgumentParser(prog="huddle")
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("discover")
    d.add_argument("type", nargs="?")
    for flag in ("--json", "--ipv4", "--ipv6"):
        d.add_argument(flag, action="store_true")
    d.add_argument("--timeout", type=float, default=5)
    d.add_argument("--count", type=int)
    ad = sub.add_parser("advertise")
    ad.add_argument("name")
    ad.add_argument("type")
    ad.add_argument("port", type=int)
    ad.add_argument("txt", nargs="*")
    for flag in ("--json", "--control", "--ipv4", "--ipv6"):
        ad.add_argument(flag, action="store_true")
    ad.add_argument("--host")
    ad.add_argument("--subtype")
    for sp in (d, ad):
        sp.add_argument("--interface", action="append")  # accepted, not applied
        sp.add_argument("--deny-interface", action="append")
    a = p.parse_args()
    return asyncio.run(discover(a) if a.cmd == "discover" else advertise(a))


if __name__ == "__main__":
    sys.exit(main())
