#!/usr/bin/env python3
"""The seed's way of sharing a clipboard, as a baseline for bench_clip.py: poll the pasteboard once a second,
send what changed over TCP, and copy it on the other side. Not a Huddle component.

  poll_relay.py send HOST PORT [--interval 1.0]     (DISPLAY = the watched X server)
  poll_relay.py receive ADDRESS PORT                (DISPLAY = the X server to copy into)
"""

from __future__ import annotations

import argparse
import hashlib
import socket
import struct
import subprocess
import time


def read_clipboard() -> tuple[str, bytes] | None:
    """The clipboard's PNG if it has one, else its UTF-8 text; None when empty."""
    targets = subprocess.run(["xclip", "-selection", "clipboard", "-o", "-t", "TARGETS"], capture_output=True,
                             timeout=10)
    if targets.returncode != 0:
        return None
    offered = targets.stdout.decode(errors="replace").split()
    mime = "image/png" if "image/png" in offered else "UTF8_STRING"
    data = subprocess.run(["xclip", "-selection", "clipboard", "-o", "-t", mime], capture_output=True, timeout=10)
    return (mime, data.stdout) if data.returncode == 0 else None


def send(host: str, port: int, interval: float) -> None:
    with socket.create_connection((host, port), timeout=10) as connection:
        last = None
        while True:
            item = read_clipboard()
            if item is not None:
                digest = hashlib.sha256(item[0].encode() + item[1]).digest()
                if digest != last:
                    last = digest
                    mime = item[0].encode()
                    connection.sendall(struct.pack(">HI", len(mime), len(item[1])) + mime + item[1])
            time.sleep(interval)


def receive(address: str, port: int) -> None:
    with socket.create_server((address, port)) as server:
        connection, _ = server.accept()
        owner = None
        with connection:
            while True:
                header = read_exactly(connection, 6)
                if header is None:
                    return
                mime_length, length = struct.unpack(">HI", header)
                mime = read_exactly(connection, mime_length).decode()
                data = read_exactly(connection, length)
                if owner is not None and owner.poll() is None:
                    owner.kill()
                    owner.wait()
                target = "text/plain;charset=utf-8" if mime == "UTF8_STRING" else mime
                owner = subprocess.Popen(["xclip", "-quiet", "-selection", "clipboard", "-t", target, "-i"],
                                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)
                owner.stdin.write(data)
                owner.stdin.close()


def read_exactly(connection: socket.socket, count: int) -> bytes | None:
    data = b""
    while len(data) < count:
        chunk = connection.recv(count - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["send", "receive"])
    parser.add_argument("address")
    parser.add_argument("port", type=int)
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args()
    if args.mode == "send":
        send(args.address, args.port, args.interval)
    else:
        receive(args.address, args.port)


if __name__ == "__main__":
    main()
