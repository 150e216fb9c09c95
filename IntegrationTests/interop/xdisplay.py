"""A private X server per test host (Xvfb on a display number it picks itself), and xclip against it.

Xvfb runs outside the test namespaces and listens only on its Unix socket (-nolisten tcp); programs in a
namespace reach it through the socket file under /tmp/.X11-unix. Each server is killed by its pid at the end.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time


class XDisplay:
    """One Xvfb server; `.display` is ":N"."""

    def __init__(self) -> None:
        if shutil.which("Xvfb") is None or shutil.which("xclip") is None:
            raise RuntimeError("Xvfb and xclip are needed (apt-get install xvfb xclip)")
        read_fd, write_fd = os.pipe()
        self.proc = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_fd), "-nolisten", "tcp", "-noreset", "-screen", "0", "320x240x24"],
            pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write_fd)
        number = b""
        deadline = time.monotonic() + 15
        with os.fdopen(read_fd, "rb") as pipe:
            while not number.endswith(b"\n") and time.monotonic() < deadline:
                chunk = pipe.read(1)
                if not chunk:
                    break
                number += chunk
        if not number.strip().isdigit():
            self.stop()
            raise RuntimeError("Xvfb did not report a display number")
        self.display = f":{number.strip().decode()}"
        self.owners: list[subprocess.Popen] = []

    def env(self, **extra: str) -> dict:
        """The environment for a client of this display."""
        return dict(os.environ, DISPLAY=self.display, **extra)

    def copy(self, data: bytes, mime: str = "text/plain;charset=utf-8", confirm: bool | None = None) -> None:
        """Copy `data` as `mime` with xclip, which then serves it from the foreground until replaced.

        With `confirm` (the default for small data) this waits until a reader sees the type offered. Large data
        goes by INCR, and xclip serves one INCR requestor at a time while stalling the others, so asking it
        anything while a sync process reads the item would block both: callers wait on their own signal then.
        """
        proc = subprocess.Popen(["xclip", "-quiet", "-selection", "clipboard", "-t", mime, "-i"],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env=self.env())
        proc.stdin.write(data)
        proc.stdin.close()
        self.owners.append(proc)
        if not (len(data) < 200_000 if confirm is None else confirm):
            return
        # xclip owns the selection once it has read its input; wait until a reader sees the type offered.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if mime.split(";")[0] in self.targets() or mime in self.targets():
                return
            time.sleep(0.01)
        raise RuntimeError(f"xclip did not take the clipboard on {self.display}")

    def targets(self) -> list[str]:
        """The types the clipboard's owner offers (empty when nobody owns it)."""
        cp = subprocess.run(["xclip", "-selection", "clipboard", "-o", "-t", "TARGETS"], env=self.env(),
                            capture_output=True, timeout=10)
        return cp.stdout.decode(errors="replace").split() if cp.returncode == 0 else []

    def paste(self, mime: str = "UTF8_STRING") -> bytes | None:
        """The clipboard's data as `mime`, or None when it is empty or not offered."""
        cp = subprocess.run(["xclip", "-selection", "clipboard", "-o", "-t", mime], env=self.env(),
                            capture_output=True, timeout=10)
        return cp.stdout if cp.returncode == 0 else None

    def wait_for(self, data: bytes, mime: str = "UTF8_STRING", timeout: float = 10) -> float:
        """Polls until the clipboard holds `data` as `mime`; returns when (monotonic). Raises on timeout."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            last = self.paste(mime)
            if last == data:
                return time.monotonic()
            time.sleep(0.02)
        shown = last if last is None or len(last) < 80 else last[:80] + b"..."
        raise AssertionError(f"{self.display}: clipboard never held the expected {mime} (last: {shown!r})")

    def stop(self) -> None:
        """Kill the owners this object started and the server, by pid."""
        for proc in getattr(self, "owners", []):
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=5)
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
