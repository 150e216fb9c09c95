"""An IPv4 mDNS sniffer + query sender that runs inside one test host (docs/mdns.md §4.6).

Two halves in one file:

* run as a script inside a host (`python3 -u mdns_sniffer.py --addr 10.x.y.2 ...`): one UDP
  socket bound to 0.0.0.0:5353 with SO_REUSEADDR + SO_REUSEPORT, joined to 224.0.0.251 on
  each --addr (the interface address, as INADDR_ANY fails without a default route), with
  IP_RECVTTL, IP_PKTINFO and SO_TIMESTAMPNS on. Every datagram becomes one JSON line
  {"event":"packet","ts":<kernel receive time, CLOCK_REALTIME>,"src","sport","dst","ttl","hex"}.
  JSON commands on stdin send datagrams from port 5353, optionally from another local source
  address (IP_PKTINFO): {"hex":..,"dst":..,"port":5353,"src":..} -> {"event":"sent","ts":..}.
  It prints {"event":"ready"} once bound and joined. Multicast loop is off: its own queries
  are reported by the "sent" lines, not echoed back.
* imported by the tests: `Sniffer` (start it in a host, read decoded `Packet`s, send queries),
  a small DNS message parser (sections, QU and cache-flush bits, PTR/SRV/TXT/A/AAAA rdata) and a
  query builder. Only IPv4 is sniffed.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys
import time
from dataclasses import dataclass, field
from typing import Callable

MDNS_GROUP = "224.0.0.251"
MDNS_PORT = 5353

A, PTR, TXT, AAAA, SRV, NSEC, ANY = 1, 12, 16, 28, 33, 47, 255
TYPE_NAMES = {A: "A", PTR: "PTR", TXT: "TXT", AAAA: "AAAA", SRV: "SRV", NSEC: "NSEC", ANY: "ANY"}
CLASS_IN = 1

# Linux values, for Pythons whose socket module lacks the names.
IP_PKTINFO = getattr(socket, "IP_PKTINFO", 8)
IP_RECVTTL = getattr(socket, "IP_RECVTTL", 12)
IP_TTL = getattr(socket, "IP_TTL", 2)
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


# --------------------------------------------------------------------------------------------
# DNS messages: parse and build (RFC 1035 §4, RFC 6762 §18)

class DNSParseError(ValueError):
    """Raised for a datagram that is not a well-formed DNS message."""


@dataclass
class Question:
    """One question; qu = the unicast-response bit (top bit of qclass, RFC 6762 §5.4)."""
    name: str
    type: int
    cls: int
    qu: bool


@dataclass
class Record:
    """One resource record; cache_flush = top bit of rrclass (RFC 6762 §10.2).

    data: PTR -> target name, SRV -> (priority, weight, port, target), TXT -> [bytes, ...],
    A/AAAA -> address text, others -> raw rdata bytes.
    """
    name: str
    type: int
    cls: int
    cache_flush: bool
    ttl: int
    data: object

    def __repr__(self) -> str:
        """'name ttl TYPE[+cf] data', +cf marking the cache-flush bit."""
        cf = "+cf" if self.cache_flush else ""
        return f"{self.name} {self.ttl} {TYPE_NAMES.get(self.type, self.type)}{cf} {self.data!r}"


@dataclass
class Message:
    """A decoded DNS message."""
    id: int
    flags: int
    questions: list[Question] = field(default_factory=list)
    answers: list[Record] = field(default_factory=list)
    authorities: list[Record] = field(default_factory=list)
    additionals: list[Record] = field(default_factory=list)

    @property
    def is_response(self) -> bool:
        """QR bit."""
        return bool(self.flags & 0x8000)

    @property
    def aa(self) -> bool:
        """Authoritative Answer bit."""
        return bool(self.flags & 0x0400)

    @property
    def tc(self) -> bool:
        """Truncated bit."""
        return bool(self.flags & 0x0200)

    @property
    def opcode(self) -> int:
        """OPCODE field."""
        return (self.flags >> 11) & 0xF

    @property
    def rcode(self) -> int:
        """RCODE field."""
        return self.flags & 0xF

    def records(self) -> list[Record]:
        """Records of all three record sections."""
        return self.answers + self.authorities + self.additionals


def _read_name(data: bytes, offset: int) -> tuple[str, int]:
    """Read a possibly compressed name at offset -> (dotted name with trailing '.', next offset).

    Labels are decoded as UTF-8 and joined with '.' (so a label containing a dot is ambiguous;
    the tests use dot-free names). Pointer loops and overruns raise DNSParseError.
    """
    labels: list[str] = []
    end = None
    jumps = 0
    while True:
        if offset >= len(data):
            raise DNSParseError("name runs past the end")
        length = data[offset]
        if length & 0xC0 == 0xC0:
            if offset + 1 >= len(data):
                raise DNSParseError("truncated pointer")
            jumps += 1
            if jumps > 64:
                raise DNSParseError("compression loop")
            if end is None:
                end = offset + 2
            offset = ((length & 0x3F) << 8) | data[offset + 1]
            continue
        if length & 0xC0:
            raise DNSParseError(f"bad label length byte {length:#x}")
        offset += 1
        if length == 0:
            break
        if offset + length > len(data):
            raise DNSParseError("label runs past the end")
        labels.append(data[offset:offset + length].decode("utf-8", "replace"))
        offset += length
    return ".".join(labels) + ".", (end if end is not None else offset)


def _rdata(data: bytes, rtype: int, start: int, length: int) -> object:
    """Decode rdata of the types the tests look at; raw bytes for the rest."""
    raw = data[start:start + length]
    if rtype == PTR:
        return _read_name(data, start)[0]
    if rtype == SRV:
        prio, weight, port = struct.unpack_from("!HHH", data, start)
        return prio, weight, port, _read_name(data, start + 6)[0]
    if rtype == TXT:
        strings, i = [], 0
        while i < len(raw):
            n = raw[i]
            strings.append(raw[i + 1:i + 1 + n])
            i += 1 + n
        return strings
    if rtype == A and length == 4:
        return socket.inet_ntop(socket.AF_INET, raw)
    if rtype == AAAA and length == 16:
        return socket.inet_ntop(socket.AF_INET6, raw)
    return raw


def parse_message(data: bytes) -> Message:
    """Decode a whole DNS message (raises DNSParseError if malformed)."""
    if len(data) < 12:
        raise DNSParseError("shorter than a header")
    ident, flags, qd, an, ns, ar = struct.unpack_from("!6H", data, 0)
    msg = Message(id=ident, flags=flags)
    offset = 12
    for _ in range(qd):
        name, offset = _read_name(data, offset)
        if offset + 4 > len(data):
            raise DNSParseError("truncated question")
        qtype, qclass = struct.unpack_from("!HH", data, offset)
        offset += 4
        msg.questions.append(Question(name, qtype, qclass & 0x7FFF, bool(qclass & 0x8000)))
    for count, section in ((an, msg.answers), (ns, msg.authorities), (ar, msg.additionals)):
        for _ in range(count):
            name, offset = _read_name(data, offset)
            if offset + 10 > len(data):
                raise DNSParseError("truncated record header")
            rtype, rclass, ttl, rdlen = struct.unpack_from("!HHIH", data, offset)
            offset += 10
            if offset + rdlen > len(data):
                raise DNSParseError("rdata runs past the end")
            section.append(Record(name, rtype, rclass & 0x7FFF, bool(rclass & 0x8000), ttl,
                                  _rdata(data, rtype, offset, rdlen)))
            offset += rdlen
    return msg


def encode_name(name: str) -> bytes:
    """'Svc._lab._tcp.local.' -> uncompressed wire form (labels split at dots)."""
    out = b""
    for label in name.rstrip(".").split("."):
        raw = label.encode()
        assert 0 < len(raw) <= 63, label
        out += bytes([len(raw)]) + raw
    return out + b"\x00"


def build_query(*questions: tuple[str, int], qu: bool = False, ident: int = 0,
                flags: int = 0) -> bytes:
    """A query with the given (name, qtype) questions, class IN (QU bit on all if qu)."""
    qclass = CLASS_IN | (0x8000 if qu else 0)
    body = b"".join(encode_name(n) + struct.pack("!HH", t, qclass) for n, t in questions)
    return struct.pack("!6H", ident, flags, len(questions), 0, 0, 0) + body


# --------------------------------------------------------------------------------------------
# Harness side: the sniffer process as seen from a test

@dataclass
class Packet:
    """One sniffed datagram: where from/to, IP TTL, kernel receive time, decoded message."""
    ts: float
    src: str
    sport: int
    dst: str
    ttl: int | None
    raw: bytes
    msg: Message | None
    error: str | None = None

    @property
    def multicast(self) -> bool:
        """Sent to the mDNS IPv4 group."""
        return self.dst == MDNS_GROUP

    def __repr__(self) -> str:
        """Time, addresses, IP TTL and the decoded message, for assertion messages."""
        what = self.error or (f"{'R' if self.msg.is_response else 'Q'} id={self.msg.id} "
                              f"flags={self.msg.flags:#06x} q={self.msg.questions} "
                              f"an={self.msg.answers} ns={self.msg.authorities} "
                              f"ar={self.msg.additionals}")
        return f"<{self.ts:.3f} {self.src}:{self.sport}->{self.dst} ttl={self.ttl} {what}>"


def packet_from_event(ev: dict) -> Packet:
    """Decode one {"event":"packet"} line of the sniffer process."""
    raw = bytes.fromhex(ev["hex"])
    try:
        msg, error = parse_message(raw), None
    except (DNSParseError, struct.error, IndexError) as e:
        msg, error = None, f"undecodable: {e}"
    return Packet(ts=ev["ts"], src=ev["src"], sport=ev["sport"], dst=ev["dst"], ttl=ev["ttl"],
                  raw=raw, msg=msg, error=error)


def script_argv(addrs: list[str]) -> list[str]:
    """argv running this file as the sniffer, joined on each interface address in addrs."""
    argv = [sys.executable, "-u", __file__]
    for a in addrs:
        argv += ["--addr", a]
    return argv


class Sniffer:
    """The sniffer process in a test host, started with Sniffer(host).start()."""

    def __init__(self, host, addrs: list[str] | None = None):
        self.host = host
        self.addrs = addrs or [host.ipv4]
        self.proc = None

    def start(self, timeout: float = 5) -> "Sniffer":
        """Spawn the sniffer in the host (stopped at testbed teardown); wait until it listens."""
        self.proc = self.host.spawn(*script_argv(self.addrs), label=f"{self.host.letter}:sniffer",
                                    stdin=True)
        self.proc.wait_event(lambda e: e.get("event") == "ready", timeout)
        return self

    def packets(self, pred: Callable[[Packet], bool] | None = None,
                since: float = 0.0) -> list[Packet]:
        """Decoded packets received so far (kernel time >= since), optionally filtered by pred."""
        out = [packet_from_event(e) for e in self.proc.events()
               if e.get("event") == "packet" and e["ts"] >= since]
        return [p for p in out if pred is None or pred(p)]

    def wait_packet(self, pred: Callable[[Packet], bool], timeout: float,
                    since: float = 0.0) -> Packet:
        """First packet (kernel time >= since) matching pred, within timeout; else AssertionError."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.packets(pred, since)
            if found:
                return found[0]
            if time.monotonic() >= deadline:
                raise AssertionError(f"no matching packet within {timeout}s; seen since {since}:\n"
                                     + "\n".join(map(repr, self.packets(since=since))))
            time.sleep(0.05)

    def send(self, data: bytes, dst: str = MDNS_GROUP, port: int = MDNS_PORT,
             src: str | None = None, timeout: float = 5) -> float:
        """Send data from port 5353 (and from src if given); return the send time (CLOCK_REALTIME)."""
        mark = self.proc.mark()
        cmd = {"hex": data.hex(), "dst": dst, "port": port}
        if src:
            cmd["src"] = src
        self.proc.send(json.dumps(cmd))
        ev = self.proc.wait_event(lambda e: e.get("event") in ("sent", "error"), timeout, start=mark)
        if ev["event"] == "error":
            raise AssertionError(f"sniffer could not send: {ev}")
        return ev["ts"]


# --------------------------------------------------------------------------------------------
# Script side: runs inside the test host

def _emit(**obj) -> None:
    """One JSON line on stdout, flushed."""
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _open_socket(addrs: list[str]) -> socket.socket:
    """0.0.0.0:5353, REUSEADDR+REUSEPORT, joined on each address, TTL/PKTINFO/timestamps on."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    s.bind(("0.0.0.0", MDNS_PORT))
    for a in addrs:
        mreq = socket.inet_aton(MDNS_GROUP) + socket.inet_aton(a)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
    s.setsockopt(socket.IPPROTO_IP, IP_RECVTTL, 1)
    s.setsockopt(socket.IPPROTO_IP, IP_PKTINFO, 1)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(addrs[0]))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    s.setsockopt(socket.IPPROTO_IP, IP_TTL, 255)
    return s


def _receive(s: socket.socket) -> None:
    """Read one datagram and print it as a packet line (IP TTL, destination, kernel time)."""
    data, ancdata, _flags, (src, sport) = s.recvmsg(9216, 512)
    ttl, dst, ts = None, None, None
    for level, ctype, cdata in ancdata:
        if level == socket.IPPROTO_IP and ctype == IP_TTL:
            ttl = struct.unpack("i", cdata[:4])[0]
        elif level == socket.IPPROTO_IP and ctype == IP_PKTINFO:
            _ifindex, _spec, addr = struct.unpack("I4s4s", cdata[:12])
            dst = socket.inet_ntoa(addr)
        elif level == socket.SOL_SOCKET and ctype == SO_TIMESTAMPNS:
            sec, nsec = struct.unpack("qq", cdata[:16])
            ts = sec + nsec / 1e9
    _emit(event="packet", ts=ts if ts is not None else time.time(), src=src, sport=sport,
          dst=dst, ttl=ttl, hex=data.hex())


def _send(s: socket.socket, line: str) -> None:
    """Execute one stdin command: send bytes from :5353, source address via IP_PKTINFO."""
    try:
        cmd = json.loads(line)
        anc = []
        if cmd.get("src"):
            pktinfo = struct.pack("I4s4s", 0, socket.inet_aton(cmd["src"]), b"\0" * 4)
            anc.append((socket.IPPROTO_IP, IP_PKTINFO, pktinfo))
        ts = time.time()
        s.sendmsg([bytes.fromhex(cmd["hex"])], anc, 0, (cmd["dst"], int(cmd.get("port", MDNS_PORT))))
        _emit(event="sent", ts=ts, dst=cmd["dst"], src=cmd.get("src"))
    except (OSError, ValueError, KeyError) as e:
        _emit(event="error", error=str(e))


def main() -> int:
    """Sniff until killed; serve send commands from stdin; exit at stdin EOF."""
    import argparse
    import selectors
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--addr", action="append", required=True, help="interface address to join on")
    a = p.parse_args()
    s = _open_socket(a.addr)
    sel = selectors.DefaultSelector()
    sel.register(s, selectors.EVENT_READ, "sock")
    sel.register(sys.stdin, selectors.EVENT_READ, "stdin")
    _emit(event="ready", addrs=a.addr)
    pending = b""  # stdin bytes not yet ending in a newline (read raw: no hidden buffering)
    while True:
        for key, _ in sel.select():
            if key.data == "sock":
                _receive(s)
                continue
            chunk = os.read(sys.stdin.fileno(), 65536)
            if not chunk:
                return 0
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                if line.strip():
                    _send(s, line.decode())


if __name__ == "__main__":
    sys.exit(main())
