"""Names from the network reach the terminal with their control characters made visible.

A host announces (raw mDNS packets: `huddle advertise` refuses such names) a service whose instance name, host
name and TXT carry terminal escapes (ESC, a C1 CSI, a bidi override, BEL); `huddle discover` on another host prints
them escaped, in its table and in --json: its output holds no ESC, no C1 control and no bidi control.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

TYPE = "_esc-test._tcp"
NAME = "x\x1b[31m\u009b2J\u202ey"
HOST = "h\u202eost"
NOTE = "\x1b]0;owned\x07"
FORBIDDEN = ["\x1b", "\x07", "\u009b", "\u202e"]

# Unsolicited announcements (RFC 6762 §8.3) of one service, every half second for 20 s.
ANNOUNCE = r"""
import socket, struct, sys, time
sys.path.insert(0, {here!r})
from mdns_sniffer import encode_name

def record(name, rtype, rdata, ttl=120, flush=True):
    return encode_name(name) + struct.pack(">HHIH", rtype, 0x8001 if flush else 1, ttl, len(rdata)) + rdata

service = {type!r} + ".local"
instance = {name!r} + "." + service
host = {host!r} + ".local"
note = {note!r}.encode()
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
s.bind(("0.0.0.0", 5353))
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton({addr!r}))
records = [record(service, 12, encode_name(instance), flush=False),
           record(instance, 33, struct.pack(">HHH", 0, 0, 4242) + encode_name(host)),
           record(instance, 16, bytes([5 + len(note)]) + b"note=" + note),
           record(host, 1, socket.inet_aton({addr!r}))]
for _ in range(40):
    s.sendto(struct.pack(">HHHHHH", 0, 0x8400, 0, len(records), 0, 0) + b"".join(records), ("224.0.0.251", 5353))
    time.sleep(0.5)
"""


@pytest.mark.hosts(2)
def test_discover_shows_escapes_in_names_and_txt_instead_of_sending_them(testbed, huddle):
    a, b = testbed[0], testbed[1]
    a.spawn(sys.executable, "-c", ANNOUNCE.format(here=os.path.dirname(os.path.abspath(__file__)), type=TYPE,
                                                  name=NAME, host=HOST, note=NOTE, addr=a.ipv4),
            label="a:announce")
    table = huddle(b, "discover", TYPE, "--timeout", "10", "--count", "1", "--interface", b.ifname)
    row = table.wait_line(lambda l: l.startswith("+ x"), 10)
    assert table.wait_exit(5) == 0, table.output()
    for _, line in table.lines:
        assert not any(c in line for c in FORBIDDEN), repr(line)
    assert row.startswith("+ x\\e[31m\\u{9B}2J\\u{202E}y "), repr(row)
    assert "h\\u{202E}ost.local:4242" in row and "note=\\e]0;owned\\a" in row, repr(row)

    listed = huddle(b, "discover", TYPE, "--json", "--timeout", "10", "--count", "1", "--interface", b.ifname)
    line = listed.wait_line(lambda l: '"added"' in l, 10)
    assert listed.wait_exit(5) == 0, listed.output()
    assert not any(c in line for c in FORBIDDEN), repr(line)
    event = json.loads(line)
    assert (event["name"], event["host"], event["txt"]) == (NAME, HOST + ".local", {"note": NOTE}), event
