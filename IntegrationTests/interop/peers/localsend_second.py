"""A second, independent LocalSend peer: the `localsend` Python package (protocol v2.1), driven
through its library. Runs under the Python 3.12 venv scripts/test makes for it
(localsend_second_peer.py starts it inside a test host). Two modes:

  localsend_second.py receive --alias NAME --dir DIR [--http] [--port N] [--decline]
  localsend_second.py send --to ADDRESS [--port N] [--http] [--alias NAME] [--no-check-device]
                           [--sha256 | --wrong-sha256] (FILE... | --text TEXT [--name NAME])

receive: the package's app (its HTTP(S) server on 0.0.0.0:PORT and its multicast tasks: one
announcement at start, an answer by POST /register to every multicast message it hears) with our
accept callback, which takes every offered file into DIR (as `.NAME.part`, renamed to NAME once the
upload ended well; a name that is not a plain file name is refused), or none with --decline (the
package then answers 403). It runs until SIGTERM.

send: one transfer and exit. GET /api/localsend/v2/info of the target with the package's client
(on a connection of its own), then the package's Uploader: unless --no-check-device it first asks
/api/localsend/v1/info (an error there ends the send; a different fingerprint there makes it give
up silently), then prepare-upload, chunked uploads (all files at once) and /cancel on failure. The
uploads' outcomes are recorded by wrapping the package client's calls (the Uploader swallows a
failed upload after its /cancel). A text is one text/plain file whose preview is the text; a
receiver that only shows it answers the offer 204, which the package's client takes for an error:
reported here as result "shown".

stdout: JSON lines.
  {"event": "ready", "alias", "fingerprint", "port", "protocol", "version"}   (receive: the port
      answers TCP connections)
  {"event": "device", "host", "alias", "fingerprint", "port", "protocol", "version",
      "deviceModel", "deviceType", "announce"}   (the package's new_device callback: a multicast
      message (announce as sent) or a POST /register (announce false); our own ones left out)
  {"event": "offer", "host", "from", "fromFingerprint", "id", "fileName", "size", "fileType",
      "sha256", "preview", "accepted"}
  {"event": "received", "fileName", "path", "size", "sha256"} / {"event": "failed", "fileName",
      "error"}
  {"event": "target", ...device info...}, {"event": "uploaded", "fileName", "ok", "status",
      "error"}, {"event": "cancel", "status"}, {"event": "done", "result": "sent" | "shown" |
      "declined" | "failed" | "skipped", "status", "error"}   (send; exit 0 for sent and shown,
      else 1)
  {"event": "log", "level", "message"}   (the package's own log lines)
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import os
import sys
import time

import aiofiles
import httpx
import pydantic

import localsend
from localsend import info as ls_info
from localsend import upload as ls_upload
from localsend.lib import dto, protocol, ssl as ls_ssl, util
from localsend.lib.protocol import client as ls_client


def emit(event: str, **fields) -> None:
    """One JSON line on stdout."""
    print(json.dumps({"event": event, **fields}), flush=True)


class JsonLog(logging.Handler):
    """The package's log (it writes to stdout) as JSON lines, so stdout stays one JSON per line."""

    def emit(self, record: logging.LogRecord) -> None:
        emit("log", level=record.levelname, message=record.getMessage())


def route_package_log() -> None:
    """Replace the package logger's stdout handler by JsonLog."""
    util.LOGGER.handlers[:] = [JsonLog()]
    util.LOGGER.propagate = False


def device_fields(info) -> dict:
    """A device info as plain JSON fields."""
    fields = json.loads(info.model_dump_json())
    return {k: fields.get(k) for k in ("alias", "fingerprint", "port", "protocol", "version",
                                       "deviceModel", "deviceType", "download", "announce")}


def plain_name(name: str) -> bool:
    """A name that stays inside the directory."""
    return bool(name) and name not in (".", "..") and "/" not in name and "\\" not in name \
        and "\x00" not in name


class Incoming:
    """Where one accepted file goes: the async context the package's upload handler writes
    into. A partial file first, renamed when the upload ended without an error."""

    def __init__(self, directory: str, file: dto.File):
        self.file = file
        self.final = os.path.join(directory, file.fileName)
        self.partial = os.path.join(directory, f".{file.fileName}.part")
        self.handle = None
        self.digest = hashlib.sha256()
        self.size = 0

    async def __aenter__(self) -> "Incoming":
        self.handle = await aiofiles.open(self.partial, mode="wb")
        return self

    async def write(self, data: bytes) -> int:
        self.digest.update(data)
        self.size += len(data)
        return await self.handle.write(data)

    async def __aexit__(self, kind, exc, tb) -> bool:
        await self.handle.close()
        if exc is not None:
            os.unlink(self.partial)
            emit("failed", fileName=self.file.fileName, error=repr(exc))
            return False
        os.replace(self.partial, self.final)
        emit("received", fileName=self.file.fileName, path=self.final, size=self.size,
             sha256=self.digest.hexdigest())
        return False


async def wait_listening(port: int, timeout: float) -> None:
    """Until something accepts TCP connections on 127.0.0.1:port (the package signals ready before
    its server binds)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on port {port} after {timeout}s") from None
            await asyncio.sleep(0.05)


async def receive(args) -> None:
    """Receive mode (module doc)."""
    config = localsend.Config(
        ssl="disabled" if args.http else ls_ssl.Config(),
        info=ls_info.Config(alias=args.alias, port=args.port),
    )
    # The same key, certificate (or plain-HTTP fingerprint) the app loads: the package keeps them
    # in its state directory.
    me = ls_info.Context.create(config.info, None if args.http else
                                ls_ssl.Context.create(config.ssl))
    async with localsend.create_app(config=config) as app:

        async def new_device(device: protocol.Device) -> None:
            if device.info.fingerprint == me.fingerprint:
                return
            emit("device", host=device.host, **device_fields(device.info))

        async def accept(device: protocol.Device, file: dto.File):
            ok = not args.decline and plain_name(file.fileName)
            emit("offer", host=device.host, **{"from": device.info.alias},
                 fromFingerprint=device.info.fingerprint, id=file.id, fileName=file.fileName,
                 size=int(file.size), fileType=file.fileType, sha256=file.sha256,
                 preview=file.preview, accepted=ok)
            return Incoming(args.dir, file) if ok else None

        app.callbacks.new_device = new_device
        app.callbacks.accept = accept
        await wait_listening(args.port, 20)
        emit("ready", alias=me.alias, fingerprint=me.fingerprint, port=me.port,
             protocol="http" if args.http else "https", version=me.protocol_version.dump())
        while True:
            await asyncio.sleep(3600)


def bytes_input(data: bytes):
    """A File input that reads data."""
    class Reader:
        def __init__(self):
            self.left = data

        async def read(self, n: int = -1) -> bytes:
            n = len(self.left) if n < 0 else n
            chunk, self.left = self.left[:n], self.left[n:]
            return chunk

        async def __aenter__(self):
            return self

        async def __aexit__(self, *exc):
            return False
    return Reader


def wrong(digest: str) -> str:
    """A SHA-256 in hex that is not digest (its last digit changed)."""
    return digest[:-1] + ("0" if digest[-1] != "0" else "1")


def sha256_of(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


async def send(args) -> int:
    """Send mode (module doc): 0 when the receiver took everything (or showed the text)."""
    ssl_ctx = None if args.http else ls_ssl.Context.create(ls_ssl.Config())
    me = ls_info.Context.create(ls_info.Config(alias=args.alias), ssl_ctx)
    scheme = dto.DeviceProtocol.HTTP if args.http else dto.DeviceProtocol.HTTPS
    files = []
    if args.text is not None:
        data = args.text.encode()
        digest = hashlib.sha256(data).hexdigest() if args.sha256 else None
        files.append(localsend.File(args.name, pydantic.ByteSize(len(data)),
                                    input=bytes_input(data), mime_type="text/plain",
                                    preview=args.text, sha256=digest))
    for path in args.files:
        files.append(localsend.File(
            os.path.basename(path), pydantic.ByteSize(os.path.getsize(path)),
            input=lambda path=path: aiofiles.open(path, mode="rb"),
            sha256=wrong(sha256_of(path)) if args.wrong_sha256 else
            sha256_of(path) if args.sha256 else None))
    config = ls_upload.Config(check_device=not args.no_check_device)
    async with ls_upload.Uploader.create(config, me) as uploader:
        provisional = protocol.Device(args.to, dto.DeviceInfo(
            alias="?", version=dto.Version(2, 1), fingerprint="", deviceModel=None,
            deviceType=None, port=args.port, protocol=scheme))
        try:
            # A client of its own, closed before the upload: the package sends its GETs with a
            # body ("{}"), which a server that leaves it unread takes for the start of the next
            # request on the same connection.
            async with httpx.AsyncClient(verify=False) as http_client:
                partial = await protocol.Client(http_client).call_info_v2(provisional)
        except Exception as e:  # noqa: BLE001 - any failure is the result
            emit("done", result="failed", status=getattr(e, "status_code", None), error=repr(e))
            return 1
        target = protocol.Device(args.to, dto.DeviceInfo(
            **partial.model_dump(), port=args.port, protocol=scheme))
        emit("target", host=args.to, **device_fields(target.info))

        outcomes: list[dict] = []
        names = {}
        real_prepare, real_upload = uploader.client.call_prepare_upload, uploader.client.call_upload
        real_cancel = uploader.client.call_cancel

        async def prepare(device, body):
            names.update({fid: f.fileName for fid, f in body.files.items()})
            return await real_prepare(device, body)

        async def upload_one(device, params, body):
            name = names.get(params.fileId)
            try:
                got = await real_upload(device, params, body)
            except Exception as e:
                status = getattr(e, "status_code", None)
                outcomes.append({"fileName": name, "ok": False, "status": status})
                emit("uploaded", fileName=name, ok=False, status=status, error=repr(e))
                raise
            outcomes.append({"fileName": name, "ok": True, "status": 200})
            emit("uploaded", fileName=name, ok=True, status=200, error=None)
            return got

        async def cancel(device, params):
            try:
                got = await real_cancel(device, params)
            except Exception as e:
                emit("cancel", sessionId=params.sessionId, status=getattr(e, "status_code", None))
                raise
            emit("cancel", sessionId=params.sessionId, status=200)
            return got

        uploader.client.call_prepare_upload = prepare
        uploader.client.call_upload = upload_one
        uploader.client.call_cancel = cancel
        try:
            await uploader.upload(files, target)
        except ls_client.InvalidCall as e:
            failed = [o for o in outcomes if not o["ok"]]
            if failed:  # the /cancel after a failed upload raised: the upload's status counts
                emit("done", result="failed", status=failed[0]["status"], error=e.text)
                return 1
            if e.status_code == 204:
                emit("done", result="shown", status=204, error=None)
                return 0
            result = "declined" if e.status_code == 403 else "failed"
            emit("done", result=result, status=e.status_code, error=e.text)
            return 1
        except Exception as e:  # noqa: BLE001 - any failure is the result
            emit("done", result="failed", status=None, error=repr(e))
            return 1
        if not outcomes:
            emit("done", result="skipped", status=None,
                 error="the Uploader sent nothing (its /v1/info check failed?)")
            return 1
        if all(o["ok"] for o in outcomes) and len(outcomes) == len(files):
            emit("done", result="sent", status=200, error=None)
            return 0
        emit("done", result="failed", status=next((o["status"] for o in outcomes if not o["ok"]),
                                                  None), error="an upload failed")
        return 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="mode", required=True)
    r = sub.add_parser("receive")
    r.add_argument("--alias", required=True)
    r.add_argument("--dir", required=True)
    r.add_argument("--port", type=int, default=53317)
    r.add_argument("--http", action="store_true", help="no TLS")
    r.add_argument("--decline", action="store_true", help="accept no file (403)")
    s = sub.add_parser("send")
    s.add_argument("files", nargs="*")
    s.add_argument("--to", required=True, help="the receiver's address")
    s.add_argument("--port", type=int, default=53317)
    s.add_argument("--http", action="store_true")
    s.add_argument("--alias", default="ls-sender")
    s.add_argument("--no-check-device", action="store_true",
                   help="skip the package's /api/localsend/v1/info check")
    s.add_argument("--sha256", action="store_true", help="give each file's SHA-256 in the offer")
    s.add_argument("--wrong-sha256", action="store_true",
                   help="give a SHA-256 that is not the file's (a receiver that checks refuses it)")
    s.add_argument("--text", default=None)
    s.add_argument("--name", default="message.txt", help="the text's file name")
    args = p.parse_args()
    route_package_log()
    if args.mode == "receive":
        try:
            asyncio.run(receive(args))
        except KeyboardInterrupt:
            pass
        return 0
    if args.text is None and not args.files:
        p.error("send: FILE... or --text")
    return asyncio.run(send(args))


if __name__ == "__main__":
    sys.exit(main())
