#!/usr/bin/env python3
"""Captures real mDNS traffic as seeds for FuzzDNSMessage (FUZZING.md, "Seeds").

Builds a four-host test bed (network namespaces, names unique to this run, removed at the end): Avahi publishes
and browses on a, `huddle advertise` and `huddle discover` run on b, python-zeroconf registers and browses on c, and
a sniffer on d keeps every UDP payload sent to 224.0.0.251:5353. Each distinct payload (at most --limit) becomes
seeds/FuzzDNSMessage/<source>-<n>.bin, the source named by the sending host. Run as root from the repository:

    HUDDLE_BIN=$PWD/.build/debug/huddle python3 FuzzTesting/capture_seeds.py
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "interop"))

from avahi_peer import Avahi  # noqa: E402
from huddle_cli import advertise, discover  # noqa: E402
from mdns_sniffer import Sniffer  # noqa: E402
from testbed import Testbed  # noqa: E402
from zc_peer import zc_browse, zc_register  # noqa: E402

TYPE = "_huddle-seed._tcp"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=12, help="how long to listen")
    parser.add_argument("--limit", type=int, default=40, help="most seeds kept")
    args = parser.parse_args()
    out = os.path.join(HERE, "seeds", "FuzzDNSMessage")
    os.makedirs(out, exist_ok=True)
    tb = Testbed(k=4).start()
    try:
        a, b, c, d = tb[0], tb[1], tb[2], tb[3]
        sniffer = Sniffer(d).start()
        av = Avahi(a).start()
        av.publish("Avahi Seed", TYPE, 1001, {"path": "/", "k": "v"})
        advertise(b, "Huddle Seed", TYPE, 1002, {"id": "abc"})
        zc_register(c, "Zeroconf Seed", TYPE, 1003, {"x": "1"})
        zc_browse(c, TYPE, timeout=args.seconds)
        discover(b, TYPE, timeout=args.seconds)
        try:
            av.browse_until(TYPE, lambda entries: len(entries) >= 3, timeout=args.seconds)
        except AssertionError:
            pass  # only its queries matter here
        time.sleep(2)
        names = {a.ipv4: "avahi", b.ipv4: "huddle", c.ipv4: "zeroconf"}
        seen: set[str] = set()
        kept = 0
        for packet in sniffer.packets():
            digest = hashlib.sha256(packet.raw).hexdigest()
            if digest in seen or kept >= args.limit:
                continue
            seen.add(digest)
            source = names.get(packet.src, "other")
            with open(os.path.join(out, f"{source}-{digest[:12]}.bin"), "wb") as f:
                f.write(packet.raw)
            kept += 1
        print(f"kept {kept} distinct mDNS packets in {out}")
        return 0 if kept else 1
    finally:
        tb.close()


if __name__ == "__main__":
    sys.exit(main())
