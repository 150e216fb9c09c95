"""Legacy unicast DNS queries with `dig` (RFC 6762 §6.7) from inside a test host."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from testbed import Host, run


@dataclass
class DigResult:
    """Parsed dig output: status, header id, answer records, warnings, raw text."""
    rc: int
    status: str | None = None
    id: int | None = None
    answers: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    raw: str = ""


def dig(host: Host, server: str, name: str, qtype: str, port: int = 5353,
        timeout: int = 2) -> DigResult:
    """Send one legacy unicast query (ephemeral source port) with dig and parse it.

    dig itself checks that the reply echoes the query ID (else it prints
    ';; Warning: ID mismatch' and keeps waiting) and the question section.
    """
    argv = ["dig", "-p", str(port), f"@{server}", name, qtype, f"+time={timeout}", "+tries=1",
            "+norecurse", "+nocookie", "+noedns"]
    cp = run(host.argv(*argv), timeout=timeout + 8, check=False)
    return parse_dig(cp.returncode, cp.stdout + cp.stderr)


def parse_dig(rc: int, text: str) -> DigResult:
    """Parse dig's default output into a DigResult."""
    res = DigResult(rc=rc, raw=text)
    if m := re.search(r"status: (\w+), id: (\d+)", text):
        res.status, res.id = m.group(1), int(m.group(2))
    res.warnings = [l for l in text.splitlines()
                    if any(w in l.lower() for w in ("warning", "mismatch", "malformed"))
                    and "reserved for multicast dns" not in l.lower()]  # dig's .local notice
    section = None
    for line in text.splitlines():
        if line.startswith(";; ") and line.endswith("SECTION:"):
            section = line[3:-len(" SECTION:")]
            continue
        if section == "ANSWER" and line and not line.startswith(";"):
            parts = line.split(None, 4)
            if len(parts) >= 4:
                res.answers.append({"name": parts[0], "ttl": int(parts[1]), "class": parts[2],
                                    "type": parts[3], "rdata": parts[4] if len(parts) > 4 else ""})
        elif not line.strip():
            section = None if section == "ANSWER" else section
    return res


def dig_escape(label: str) -> str:
    """Escape one DNS label for dig's command line (spaces/dots/non-ASCII as \\DDD)."""
    out = []
    for b in label.encode():
        ch = chr(b)
        out.append(ch if ch.isalnum() or ch in "-_" else f"\\{b:03d}")
    return "".join(out)
