#!/usr/bin/env python3
"""Browse service types with python-zeroconf and print resolved events as JSON lines.

  zc_browse.py TYPE [TYPE ...] [--timeout S] [--count N] [--ip all|v4|v6]

Lines: {"event":"added"|"updated","name":..,"type":..,"host":..,"port":..,
        "addresses":[..],"txt":{..}} straight from ServiceBrowser callbacks (resolved
first), {"event":"removed","name":..,"type":..}, and {"event":"resolved",...} when
more records (e.g. the AAAA) arrive within 3 s after an added/updated event.
Exits after --timeout seconds, or after --count added events.
"""

import argparse
import asyncio
import sys

from zc_common import IP_VERSIONS, decode_properties, emit, full_type, instance_of, short_type
from zeroconf import InterfaceChoice, ServiceStateChange
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

STATES = {ServiceStateChange.Added: "added", ServiceStateChange.Updated: "updated",
          ServiceStateChange.Removed: "removed"}


def snapshot(info: AsyncServiceInfo, type_full: str) -> dict:
    """JSON-able view of a (possibly partly) resolved ServiceInfo."""
    return dict(name=instance_of(info.name, type_full), type=short_type(type_full),
                host=(info.server or "").rstrip(".") or None, port=info.port,
                addresses=sorted(info.parsed_scoped_addresses()),
                txt=decode_properties(info.properties))


class Browser:
    """Turns ServiceBrowser callbacks into ordered, resolved JSON events."""

    def __init__(self, aiozc: AsyncZeroconf, count: int | None):
        self.aiozc, self.count, self.added = aiozc, count, 0
        self.chains: dict[str, asyncio.Future] = {}  # per-name ordering
        self.done = asyncio.Event()

    def on_change(self, zeroconf, service_type: str, name: str, state_change) -> None:
        """ServiceBrowser handler: queue the event behind earlier ones for name."""
        prev = self.chains.get(name)
        self.chains[name] = asyncio.ensure_future(
            self.handle(prev, service_type, name, STATES[state_change]))

    async def handle(self, prev, type_full: str, name: str, event: str) -> None:
        """Resolve (added/updated) and print one event."""
        if prev is not None:
            await asyncio.gather(prev, return_exceptions=True)
        if event == "removed":
            emit(event=event, name=instance_of(name, type_full), type=short_type(type_full))
            return
        info = AsyncServiceInfo(type_full, name)
        await info.async_request(self.aiozc.zeroconf, 3000)
        last = snapshot(info, type_full)
        emit(event=event, **last)
        if event == "added":
            self.added += 1
            if self.count and self.added >= self.count:
                self.done.set()
                return
        asyncio.ensure_future(self.follow(info, type_full, last))

    async def follow(self, info: AsyncServiceInfo, type_full: str, last: dict) -> None:
        """For 3 s, print a 'resolved' event whenever the cached view changes."""
        for _ in range(12):
            await asyncio.sleep(0.25)
            info.load_from_cache(self.aiozc.zeroconf)
            now = snapshot(info, type_full)
            if now != last:
                emit(event="resolved", **now)
                last = now


async def main() -> int:
    """Browse until timeout or count."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("types", nargs="+")
    p.add_argument("--timeout", type=float, default=10)
    p.add_argument("--count", type=int, default=None)
    p.add_argument("--ip", choices=IP_VERSIONS, default="all")
    a = p.parse_args()
    aiozc = AsyncZeroconf(interfaces=InterfaceChoice.All, ip_version=IP_VERSIONS[a.ip])
    browser = Browser(aiozc, a.count)
    sb = AsyncServiceBrowser(aiozc.zeroconf, [full_type(t) for t in a.types],
                             handlers=[browser.on_change])
    try:
        await asyncio.wait_for(browser.done.wait(), a.timeout)
    except asyncio.TimeoutError:
        pass
    await sb.async_cancel()
    await aiozc.async_close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
