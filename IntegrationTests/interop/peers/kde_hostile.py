#!/usr/bin/env python3
"""A KDE Connect device (protocol 7) that breaks the rules, for test_huddle_kdeconnect_hostile.py.

  kde_hostile.py HOST PORT DIR SCENARIO [DEVICE_ID NAME]

It makes its own certificate in DIR (named for its device ID, as the protocol asks), dials HOST:PORT, sends its
identity (named "hostile-SCENARIO", so that each scenario is a device of its own), takes the TLS server's part (the dialler is the TLS server in KDE Connect), asks to pair, and once paired
plays SCENARIO:

  oversized   a packet line of 2 MiB with no newline
  badname     a file offered as "../../escaped.txt"
  longer      a file offered as 1,000 bytes whose payload connection sends 5,000
  shorter     a file offered as 1,000,000 bytes whose payload connection sends 1,000 and closes
  stall       a file offered as 1,000 bytes whose payload connection sends 10 and then nothing
  impostor    claims DEVICE_ID and NAME (another device's, paired with HOST) with a certificate of its own,
              asks to pair and offers a file; it should be closed before anything of that

It prints one line per step ("linked", "paired", "offered PORT", "payload connected", "payload sent N",
"closed by peer", ...) and exits when the scenario is over or after 90 s.
"""

import json
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
import uuid

host, port, work, scenario = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
device_id = sys.argv[5] if len(sys.argv) > 5 else uuid.uuid4().hex
name = sys.argv[6] if len(sys.argv) > 6 else f"hostile-{scenario}"
deadline = time.monotonic() + 90


def say(*words) -> None:
    print(*words, flush=True)


def packet(kind: str, body: dict, **extra) -> bytes:
    return (json.dumps({"id": int(time.time() * 1000), "type": kind, "body": body, **extra}) + "\n").encode()


cert, key = os.path.join(work, "cert.pem"), os.path.join(work, "key.pem")
subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-keyout", key, "-out",
                cert, "-subj", f"/O=KDE/OU=Kde connect/CN={device_id}"], check=True, capture_output=True)
server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
server_context.load_cert_chain(cert, key)

raw = socket.create_connection((host, port), timeout=10)
identity = {"deviceId": device_id, "deviceName": name, "deviceType": "phone", "protocolVersion": 7,
            "incomingCapabilities": ["kdeconnect.share.request"], "outgoingCapabilities": ["kdeconnect.share.request"],
            "tcpPort": 1716}
raw.sendall(packet("kdeconnect.identity", identity))
link = server_context.wrap_socket(raw, server_side=True)
link.settimeout(1)
say("linked")

buffered = b""


def read_packets() -> list[dict]:
    """The packets that arrived within a second; raises EOFError when the peer closed the link."""
    global buffered
    try:
        data = link.recv(65536)
    except (socket.timeout, TimeoutError):
        return []
    if not data:
        raise EOFError
    buffered += data
    lines = buffered.split(b"\n")
    buffered = lines.pop()
    return [json.loads(line) for line in lines if line.strip()]


paired = False
try:
    link.sendall(packet("kdeconnect.pair", {"pair": True}))
    if scenario == "impostor":
        # As a paired device would (it believes the pairing is on record there), offer a file at once.
        offer_port = socket.socket()
        offer_port.bind(("0.0.0.0", 0))
        offer_port.listen(1)
        link.sendall(packet("kdeconnect.share.request", {"filename": "impostor.bin", "numberOfFiles": 1,
                                                          "totalPayloadSize": 10},
                            payloadSize=10, payloadTransferInfo={"port": offer_port.getsockname()[1]}))
        say("offered", offer_port.getsockname()[1])
    while not paired and time.monotonic() < deadline:
        for p in read_packets():
            say("packet", p.get("type"))
            if p.get("type") == "kdeconnect.pair" and p["body"].get("pair") is True:
                paired = True
except (EOFError, OSError):
    say("closed by peer")
    sys.exit(0)
if not paired:
    say("not paired")
    sys.exit(1)
say("paired")


def serve_payload(sizes: tuple[int, int], stall: bool) -> int:
    """Listens for the payload connection (TLS server, the link's certificate); returns the port."""
    announced, sent = sizes
    listener = socket.socket()
    listener.bind(("0.0.0.0", 0))
    listener.listen(1)

    def run() -> None:
        listener.settimeout(60)
        try:
            conn, _ = listener.accept()
        except OSError:
            say("payload never fetched")
            return
        tls = server_context.wrap_socket(conn, server_side=True)
        say("payload connected")
        try:
            tls.sendall(os.urandom(sent))
            say("payload sent", sent)
            if stall:
                tls.settimeout(60)
                while tls.recv(1):  # until the receiver gives up
                    pass
            else:
                tls = tls.unwrap()  # close_notify: a clean end, so the size is what is wrong
            say("payload closed by receiver" if stall else "payload done")
        except OSError as error:
            say("payload ended:", type(error).__name__)
        finally:
            tls.close()
    threading.Thread(target=run, daemon=True).start()
    return listener.getsockname()[1]


def offer(name: str, announced: int, sent: int, stall: bool = False) -> None:
    payload_port = serve_payload((announced, sent), stall)
    link.sendall(packet("kdeconnect.share.request", {"filename": name, "numberOfFiles": 1,
                                                      "totalPayloadSize": announced},
                        payloadSize=announced, payloadTransferInfo={"port": payload_port}))
    say("offered", payload_port)


if scenario == "oversized":
    try:
        link.sendall(b"{" + b"x" * (2 << 20))
    except OSError as error:
        say("send ended:", type(error).__name__)
elif scenario == "badname":
    offer("../../escaped.txt", 10, 10)
elif scenario == "longer":
    offer("longer.bin", 1000, 5000)
elif scenario == "shorter":
    offer("shorter.bin", 1_000_000, 1000)
elif scenario == "stall":
    offer("stalled.bin", 1000, 10, stall=True)

# Keep the link until the peer closes it or the time is up; say which.
try:
    while time.monotonic() < deadline:
        read_packets()
    say("time up")
except (EOFError, OSError):
    say("closed by peer")
