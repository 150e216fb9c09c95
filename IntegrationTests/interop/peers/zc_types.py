#!/usr/bin/env python3
"""List the service types on the network with python-zeroconf's ZeroconfServiceTypes.find().

  zc_types.py [--timeout S] [--ip all|v4|v6]

Prints one JSON line {"event":"types","types":["_lab._tcp", ...]} (short forms, sorted), then exits.
"""

import argparse
import sys

from zc_common import IP_VERSIONS, emit, short_type
from zeroconf import InterfaceChoice, ZeroconfServiceTypes


def main() -> int:
    """One find() run over every interface."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--timeout", type=float, default=3)
    p.add_argument("--ip", choices=IP_VERSIONS, default="all")
    a = p.parse_args()
    found = ZeroconfServiceTypes.find(timeout=a.timeout, interfaces=InterfaceChoice.All,
                                      ip_version=IP_VERSIONS[a.ip])
    emit(event="types", types=sorted(short_type(t) for t in found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
