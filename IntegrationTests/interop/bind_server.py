"""A real BIND 9 (`named`) in a test host: the site DNS server for DNS UPDATE and unicast DNS-SD.

Huddle registers its service by DNS UPDATE (RFC 2136) signed with TSIG (RFC 8945, hmac-sha256) and
browses by unicast DNS-SD queries (RFC 6763 §11). `BindServer(host, zone).start()` (or the `bind9`
fixture in conftest.py: `bind9(host, zone="example.internal")`) runs `named -g` inside host's
namespace as a LineProc, so testbed teardown stops it, with everything it writes in its own
directory under Testbed.tmpdir:

    <tmpdir>/bind-<letter>-<zone>-<n>/
        named.conf         options (directory, pid-file, lock-file, session-keyfile, dump and
                           statistics files all here), `controls { };` (no rndc channel),
                           listen-on the host's own IPv4 (listen-on-v6 its ULA with ula=True, else
                           its fe80:: address), recursion no, dnssec-validation no, notify no
        <zone>.zone        the zone, dynamic: named writes <zone>.zone.jnl beside it
        update.key         the TSIG key (tsig-keygen -a hmac-sha256 <key_name>), the BIND
                           `key "name" { algorithm hmac-sha256; secret "..."; };` format that
                           named.conf includes and `huddle --tsig-key FILE` reads
        wrong.key          the same key name with another secret (a negative test's key)

The zone (TTL 30 s, SOA minimum / negative TTL 30 s): SOA, NS ns1.<zone>, ns1 A (and AAAA with a
ULA) of the server, the DNS-SD browse-domain pointers `b._dns-sd._udp.<zone>` and
`lb._dns-sd._udp.<zone>` PTR <zone>. `allow-update { key <key_name>; }`: only the key may update
(an unsigned update is REFUSED, one signed with wrong.key NOTAUTH with TSIG error BADSIG).
`allow-transfer` is the test bed's own subnets (and loopback), so `records()` can AXFR.

named keeps no state outside that directory: no /etc/bind (bindkeys-file is ours and empty), no
/var/cache/bind, no /run/named (pid, lock and session key are ours), no rndc key or channel. start() returns once named answers the zone's SOA
(polled, bounded by start_timeout; named's exit fails it at once with its log).

Attributes: address (the host's IPv4), address6 (its ULA, else its fe80:: address), zone (no final
dot), origin (with it), key_name, key_file, key_secret, wrong_key_file, zone_file, journal_file,
conf_file, dir, proc (named's LineProc: its log lines, for wait_line). Names given to the helpers
are relative to the zone unless they end in a dot (`fqdn`), '@' is the apex. The helpers run dig /
nsupdate inside a test host (client=, default the server's own):

    query(name, rtype, client=None, server=None) -> sorted rdata strings of the answer; [] for
        NXDOMAIN or no such record; no answer at all or another RCODE raises TestbedError
    lookup(name, rtype, client=None, server=None) -> dns_tools.DigResult (status, flags in raw)
    update(*nsupdate_lines, key_file=<key_file>, client=None, check=True) -> UpdateResult
        (rc, status e.g. NOERROR / REFUSED / NOTAUTH, tsig_error e.g. BADSIG, output);
        key_file=wrong_key_file signs with the wrong secret, key_file=None sends it unsigned
    records(client=None) -> every record by AXFR, dicts (name, ttl, class, type, rdata)
    serial(client=None) -> the SOA serial
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
from dataclasses import dataclass

from dns_tools import DigResult, parse_dig
from testbed import Host, LineProc, TestbedError, run, wait_until

TOOLS = ("named", "tsig-keygen", "nsupdate", "dig")
_SERIAL = itertools.count(1)
_DEFAULT = object()  # update(key_file=...) not given: the right key


def tool(name: str) -> str | None:
    """Path of a BIND tool: PATH first, then the sbin directories a non-login PATH may lack."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin:/usr/local/sbin")


def missing_bind_tools() -> list[str]:
    """The tools among named, tsig-keygen, nsupdate and dig that are not installed."""
    return [t for t in TOOLS if not tool(t)]


@dataclass
class UpdateResult:
    """What one nsupdate run did: rc 0 = NOERROR; status e.g. 'NOERROR', 'REFUSED', 'NOTAUTH'
    (the response's RCODE), tsig_error e.g. 'BADSIG' (the TSIG error, RFC 8945 §5.3.2)."""
    rc: int
    status: str
    tsig_error: str | None
    output: str


def tsig_keygen(name: str) -> str:
    """A fresh hmac-sha256 key statement for name, as tsig-keygen prints it."""
    text = run([tool("tsig-keygen") or "tsig-keygen", "-a", "hmac-sha256", name]).stdout
    assert f'key "{name}"' in text and "hmac-sha256" in text, text
    return text


def key_secret(key_text: str) -> str:
    """The base64 secret of a BIND key statement."""
    m = re.search(r'secret\s+"([^"]+)"', key_text)
    if not m:
        raise TestbedError(f"no secret in key statement:\n{key_text}")
    return m.group(1)


class BindServer:
    """named serving one dynamic zone in a test host; see the module doc."""

    def __init__(self, host: Host, zone: str = "example.internal", port: int = 53,
                 start_timeout: float = 15):
        self.host, self.testbed = host, host.testbed
        self.zone = zone.rstrip(".")
        self.origin = self.zone + "."
        self.port, self.start_timeout = port, start_timeout
        self.address = host.ipv4
        # IPv6: the ULA with Testbed(ula=True), else the link-local address (scoped for clients on
        # the same link; named listens on it but a routed client cannot reach it).
        self.address6 = host.ula or host.ipv6_ll
        n = next(_SERIAL)
        self.dir = os.path.join(self.testbed.tmpdir,
                                f"bind-{host.letter}-{self.zone.replace('.', '_')}-{n}")
        self.conf_file = os.path.join(self.dir, "named.conf")
        self.zone_file = os.path.join(self.dir, f"{self.zone}.zone")
        self.journal_file = self.zone_file + ".jnl"
        self.key_file = os.path.join(self.dir, "update.key")
        self.wrong_key_file = os.path.join(self.dir, "wrong.key")
        # Unique per run and per server: the testbed prefix holds our pid and the bed's number.
        self.key_name = f"huddle-{host.letter}{n}.{self.testbed.prefix.replace('_', '-')}"
        self.key_secret = ""
        self.proc: LineProc | None = None

    # -- files ---------------------------------------------------------------------------------

    def _write_files(self) -> None:
        """named.conf, the zone file and both key files, in a directory of their own."""
        os.makedirs(self.dir, mode=0o700)
        right = tsig_keygen(self.key_name)
        wrong = tsig_keygen(self.key_name)
        self.key_secret = key_secret(right)
        assert key_secret(wrong) != self.key_secret
        for path, text in ((self.key_file, right), (self.wrong_key_file, wrong)):
            with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
                f.write(text)
        with open(self.zone_file, "w") as f:
            f.write(self.zone_text())
        with open(self.conf_file, "w") as f:
            f.write(self.conf_text())
        open(os.path.join(self.dir, "bind.keys"), "w").close()

    def zone_text(self) -> str:
        """The zone's master file: SOA (negative TTL 30 s), NS, the server's address, and the
        RFC 6763 §11 browse-domain pointers."""
        aaaa = f"ns1\tIN\tAAAA\t{self.host.ula}\n" if self.host.ula else ""
        return (f"$ORIGIN {self.origin}\n"
                "$TTL 30\n"
                f"@\tIN\tSOA\tns1.{self.origin} hostmaster.{self.origin} (\n"
                "\t\t1\t; serial\n\t\t30\t; refresh\n\t\t30\t; retry\n"
                "\t\t3600\t; expire\n\t\t30 )\t; minimum: the negative TTL\n"
                "@\tIN\tNS\tns1\n"
                f"ns1\tIN\tA\t{self.address}\n"
                f"{aaaa}"
                "b._dns-sd._udp\tIN\tPTR\t@\n"
                "lb._dns-sd._udp\tIN\tPTR\t@\n")

    def conf_text(self) -> str:
        """named.conf: everything in self.dir, no control channel, only our addresses (named -g
        logs to stderr, which LineProc collects, whatever a logging statement would say)."""
        d = self.dir
        tb = self.testbed
        v6 = (f"listen-on-v6 port {self.port} {{ {self.address6}; }};" if self.address6
              else "listen-on-v6 { none; };")
        nets = [*tb.cidr4.values(), *tb.cidr6.values(), "127.0.0.1", "::1"]
        acl = " ".join(f"{n};" for n in nets)
        return f"""// Huddle interop test bed: one dynamic zone, nothing outside {d}
include "{self.key_file}";
acl testbed {{ {acl} }};
controls {{ }};
options {{
    directory "{d}";
    pid-file "{d}/named.pid";
    lock-file "{d}/named.lock";
    session-keyfile "{d}/session.key";
    managed-keys-directory "{d}";
    bindkeys-file "{d}/bind.keys";
    dump-file "{d}/named_dump.db";
    statistics-file "{d}/named.stats";
    memstatistics-file "{d}/named.memstats";
    secroots-file "{d}/named.secroots";
    recursing-file "{d}/named.recursing";
    geoip-directory none;
    listen-on port {self.port} {{ {self.address}; }};
    {v6}
    recursion no;
    dnssec-validation no;
    notify no;
    allow-query {{ any; }};
    allow-transfer {{ testbed; }};
    allow-update {{ none; }};
    empty-zones-enable no;
}};
zone "{self.origin}" {{
    type primary;
    file "{self.zone_file}";
    journal "{self.journal_file}";
    allow-update {{ key "{self.key_name}"; }};
}};
"""

    # -- process -------------------------------------------------------------------------------

    def start(self) -> "BindServer":
        """Write the files, start `named -g` in the host, wait (bounded) until it answers SOA."""
        self._write_files()
        self.proc = self.host.spawn(tool("named") or "named", "-g", "-n", "1", "-c",
                                    self.conf_file, label=f"{self.host.letter}:named",
                                    merge_stderr=True)

        def answers() -> bool:
            """named answers the zone's SOA (fails fast if it exited)."""
            if self.proc.proc.poll() is not None:
                raise TestbedError(f"named exited (rc={self.proc.proc.returncode})")
            res = self.lookup("@", "SOA", timeout=1)
            return res.status == "NOERROR" and bool(res.answers)
        try:
            wait_until(answers, timeout=self.start_timeout, interval=0.05,
                       what=f"named on {self.host.ns} to answer {self.origin} SOA")
        except TestbedError as e:
            raise TestbedError(f"{e}\n{self.proc.output(80)}") from None
        return self

    def stop(self) -> int:
        """Stop named now (teardown does it otherwise); return its exit code."""
        return self.proc.stop(timeout=5) if self.proc else 0

    def output(self, tail: int = 80) -> str:
        """named's last log lines, for failure messages."""
        return self.proc.output(tail) if self.proc else ""

    # -- helpers -------------------------------------------------------------------------------

    def fqdn(self, name: str) -> str:
        """name made absolute: '@' is the apex, a name without a final dot is in the zone."""
        if name == "@":
            return self.origin
        return name if name.endswith(".") else f"{name}.{self.origin}"

    def _dig(self, client: Host | None, *args: str, timeout: float = 2,
             server: str | None = None) -> tuple[int, str]:
        """Run dig @server (default: address) in client's namespace (default: the server's own
        host)."""
        t = max(1, int(timeout))
        argv = [tool("dig") or "dig", f"@{server or self.address}", "-p", str(self.port),
                f"+time={t}", "+tries=2", "+norecurse", *args]
        cp = run((client or self.host).argv(*argv), timeout=2 * t + 8, check=False)
        return cp.returncode, cp.stdout + cp.stderr

    def query(self, name: str, rtype: str, client: Host | None = None,
              server: str | None = None) -> list[str]:
        """The rdata strings (presentation form, as dig +short prints them) of the answer to
        name/rtype, sorted; [] for NXDOMAIN or NOERROR without the record. No answer at all or
        another RCODE raises, so an empty list never hides a dead server. server: another of
        named's addresses to ask (e.g. address6)."""
        res = self.lookup(name, rtype, client, server)
        if res.status not in ("NOERROR", "NXDOMAIN"):
            raise TestbedError(f"query {self.fqdn(name)} {rtype} @{server or self.address}: "
                               f"status {res.status} (dig rc={res.rc})\n{res.raw}")
        return sorted(a["rdata"] for a in res.answers)

    def lookup(self, name: str, rtype: str, client: Host | None = None,
               server: str | None = None, timeout: float = 2) -> DigResult:
        """The whole response (status, flags in raw, answer records) as dns_tools.DigResult;
        status None if no response came."""
        rc, out = self._dig(client, self.fqdn(name), rtype, timeout=timeout, server=server)
        return parse_dig(rc, out)

    def records(self, client: Host | None = None) -> list[dict]:
        """Every record of the zone by AXFR (SOA once), as dicts with name, ttl, class, type and
        rdata (dig's presentation form, names absolute)."""
        rc, out = self._dig(client, "+onesoa", "+nocmd", "+nostats", "+nocomments",
                            self.origin, "AXFR", timeout=3)
        rows = []
        for line in out.splitlines():
            if not line or line.startswith(";"):
                continue
            parts = line.split(None, 4)
            if len(parts) < 4:
                continue
            rows.append({"name": parts[0], "ttl": int(parts[1]), "class": parts[2],
                         "type": parts[3], "rdata": parts[4] if len(parts) > 4 else ""})
        if rc != 0 or not any(r["type"] == "SOA" for r in rows):
            raise TestbedError(f"AXFR of {self.origin} failed (rc={rc}):\n{out}")
        return rows

    def serial(self, client: Host | None = None) -> int:
        """The zone's SOA serial."""
        soa = self.query("@", "SOA", client)
        if not soa:
            raise TestbedError(f"no SOA for {self.origin}")
        return int(soa[0].split()[2])

    def update(self, *commands: str, key_file=_DEFAULT, client: Host | None = None,
               check: bool = True, timeout: float = 10) -> UpdateResult:
        """Send one DNS UPDATE with nsupdate: commands are nsupdate lines such as
        'update add _huddle._tcp 30 PTR x._huddle._tcp' (names relative to the zone are made
        absolute), or 'prereq nxdomain x._huddle._tcp'. Signed with key_file (default the right
        key; wrong_key_file, or None for unsigned). check=True asserts NOERROR."""
        lines = [f"server {self.address} {self.port}", f"zone {self.origin}"]
        lines += [self._absolute(c) for c in commands]
        lines += ["send", "answer"]
        kf = self.key_file if key_file is _DEFAULT else key_file
        argv = [tool("nsupdate") or "nsupdate", "-t", "3", "-u", "1", "-r", "1"]
        if kf:
            argv += ["-k", kf]
        cp = run((client or self.host).argv(*argv), timeout=timeout, check=False,
                 input="\n".join(lines) + "\n")
        out = cp.stdout + cp.stderr
        m = re.search(r"update failed: (\w+)(?:\((\w+)\))?", out)
        status = m.group(1) if m else ("NOERROR" if cp.returncode == 0 else "FAILED")
        tsig = m.group(2) if m and m.group(2) else None
        if not tsig and (t := re.search(r"TSIG error with server: (.*)", out)):
            tsig = t.group(1).strip()
        res = UpdateResult(cp.returncode, status, tsig, out)
        if check and (cp.returncode != 0 or status != "NOERROR"):
            raise AssertionError(f"update refused: {res}\n--- script:\n" + "\n".join(lines)
                                 + "\n" + self.output(20))
        return res

    def _absolute(self, command: str) -> str:
        """An nsupdate 'update add|delete NAME ...' / 'prereq ... NAME ...' line with NAME
        made absolute in the zone."""
        words = command.split(None, 3)
        if len(words) >= 3 and words[0] in ("update", "prereq") and \
                words[1] in ("add", "delete", "del", "nxdomain", "yxdomain", "nxrrset", "yxrrset"):
            words[2] = self.fqdn(words[2])
            return " ".join(words)
        return command
