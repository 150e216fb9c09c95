"""Shared bits of the python-zeroconf peer scripts (JSON output, names, TXT)."""

import json
import sys

from zeroconf import IPVersion

IP_VERSIONS = {"all": IPVersion.All, "v4": IPVersion.V4Only, "v6": IPVersion.V6Only}


def emit(**obj) -> None:
    """Print one JSON object per line and flush (the harness reads line by line)."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def full_type(type_: str) -> str:
    """'_lab._tcp' -> '_lab._tcp.local.' (already-full types are kept)."""
    type_ = type_.rstrip(".")
    return type_ + "." if type_.endswith(".local") else type_ + ".local."


def instance_of(name: str, type_full: str) -> str:
    """'My Svc._lab._tcp.local.' -> 'My Svc'."""
    suffix = "." + type_full
    return name[: -len(suffix)] if name.endswith(suffix) else name


def short_type(type_full: str) -> str:
    """'_lab._tcp.local.' -> '_lab._tcp'."""
    return type_full[: -len(".local.")] if type_full.endswith(".local.") else type_full


def parse_txt_args(items) -> dict:
    """['k=v', 'flag'] -> {'k': 'v', 'flag': None} (python-zeroconf properties)."""
    props = {}
    for item in items:
        key, eq, value = item.partition("=")
        props[key] = value if eq else None
    return props


def decode_properties(props: dict) -> dict:
    """python-zeroconf properties (bytes) -> JSON: str values, True for booleans."""
    out = {}
    for k, v in (props or {}).items():
        key = k.decode("utf-8", "replace") if isinstance(k, bytes) else str(k)
        out[key] = True if v is None else (v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v))
    return out
