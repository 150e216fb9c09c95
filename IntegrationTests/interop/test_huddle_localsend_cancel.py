"""LocalSend cancels, both ways, between Huddle and localsendd (an independent LocalSend v2 implementation) in
another test host.

Full tier. The file is 2 GiB and sparse (nothing written until read), so a transfer is still under way when the
test acts on its first progress: the cancel is triggered by an event, never after a sleep, and every wait has a
deadline.

- Ctrl-C on `huddle send`: Huddle POSTs /cancel (before its upload stops; that order is checked by
  LocalSendCancelTests), so localsendd ends the session as cancelled by the sender and keeps nothing; huddle says so
  and exits 130.
- localsendd cancels while receiving: `huddle send` fails saying the receiving device cancelled.
- localsendd cancels while sending to `huddle receive`: the receiver reports the transfer failed and leaves no file,
  neither under the final name nor a partial one.
"""

from __future__ import annotations

import os
import re
import signal
import time

import pytest

from huddle_cli import huddle_bin
from localsend_peer import localsendd_bin
from testbed import LineProc, wait_until

pytestmark = pytest.mark.full
BED = pytest.mark.hosts(2, default_route=True)
SIZE = 2 << 30


def sparse_file(directory: str, name: str, size: int = SIZE) -> str:
    """A file of size zero bytes that takes no room (a hole)."""
    path = os.path.join(directory, name)
    with open(path, "wb") as f:
        f.truncate(size)
    return path


def spawn(host, home: str, *args: str):
    """huddle ARGS in host, with its own data directory, on the test link; stderr among the lines."""
    env = dict(os.environ, HUDDLE_HOME=home)
    argv = [huddle_bin(), *args, "--host", f"huddle-{host.letter}", "--interface", host.ifname]
    return host.testbed.track(host.spawn(*argv, label=f"{host.letter}:{args[0]}", env=env, merge_stderr=True))


def moving(direction: str):
    """Predicate: a progress event in direction with bytes moved and more to come."""
    return lambda e: (e.get("event") == "progress" and e.get("direction") == direction
                      and 0 < e["completed"] < e["total"] == SIZE)


def lines(proc) -> list[str]:
    """Every line proc printed (stdout and stderr)."""
    return [line for _, line in proc.lines]


def result_after(peer, start: float) -> dict:
    """localsendd's result of the transfer that ended after start (time.time()), waited for (bounded). Its control
    socket is safe to ask now: no transfer to it can start."""
    def ended() -> dict | None:
        st = peer.status()
        result = st.get("result") or {}
        return result if (result.get("at") or 0) >= start and st.get("active") is None else None
    return wait_until(ended, timeout=20, interval=0.1, what=f"{peer.alias} to end the transfer")


@BED
def test_ctrl_c_on_huddle_send_cancels_the_session_at_localsendd(testbed, localsendd, homes):
    """SIGINT to `huddle send` once bytes move: localsendd ends the session as cancelled by the sender ("The sender
    cancelled.") and keeps no file; huddle prints that the transfer was cancelled and exits 130, without a `sent`.
    Only Huddle's /cancel ends that session: localsendd keeps a session whose upload broke off open for a retry."""
    a, b = testbed.hosts
    peer = localsendd(b, "ld-b")
    path = sparse_file(testbed.tmpdir, "huge.bin")
    started = time.time()
    sender = spawn(a, homes("a"), "send", path, "--to", "ld-b", "--name", "Ada", "--json", "--wait", "20")
    step = sender.wait_event(moving("send"), 90)
    assert step["file"] == "huge.bin", step
    sender.send_signal(signal.SIGINT)
    assert sender.wait_exit(20) == 130, sender.output()
    out = lines(sender)
    assert "huddle: ld-b: the transfer was cancelled" in out, sender.output()
    assert "huddle: interrupted" in out, sender.output()
    assert not [e for e in sender.events() if e.get("event") == "sent"], sender.output()
    result = result_after(peer, started)
    assert (result["kind"], result["detail"]) == ("recv_cancelled", "The sender cancelled."), \
        f"{result}\n{peer.output()}"
    assert peer.received_files() == []


@BED
def test_localsendd_cancelling_while_it_receives_fails_huddle_send_saying_so(testbed, localsendd, homes):
    """`localsendctl cancel` at localsendd once bytes move: `huddle send` ends non-zero, its `failed` event and its
    error saying that the receiving device cancelled; localsendd keeps no file."""
    a, b = testbed.hosts
    peer = localsendd(b, "ld-b")
    path = sparse_file(testbed.tmpdir, "huge.bin")
    started = time.time()
    sender = spawn(a, homes("a"), "send", path, "--to", "ld-b", "--name", "Ada", "--json", "--wait", "20")
    sender.wait_event(moving("send"), 90)
    assert peer.cancel() == "recv"
    assert sender.wait_exit(30) == 1, sender.output()
    failed = [e for e in sender.events() if e.get("event") == "failed"]
    assert [(e["file"], e["error"]) for e in failed] == \
        [("huge.bin", "the receiving device cancelled the transfer")], sender.output()
    assert "huddle: ld-b: the receiving device cancelled the transfer" in lines(sender), sender.output()
    assert not [e for e in sender.events() if e.get("event") == "sent"], sender.output()
    result = result_after(peer, started)
    assert (result["kind"], result["detail"]) == ("cancelled", "Cancelled on this device."), result
    assert peer.received_files() == []


@BED
def test_localsendd_cancelling_while_it_sends_leaves_nothing_at_huddle_receive(testbed, localsendd, homes):
    """localsendd sends 2 GiB to `huddle receive --yes --json` and cancels once bytes arrive: the receiver reports
    the transfer failed (a `failed` event naming the file and the sender, saying how much had come and that nothing
    is kept), keeps nothing (no file under the name, no partial file) and goes on receiving until interrupted;
    localsendd's send ends cancelled."""
    a, b = testbed.hosts
    peer = localsendd(b, "ld-b")
    directory = os.path.join(testbed.tmpdir, "inbox")
    os.makedirs(directory)
    path = sparse_file(testbed.tmpdir, "huge.bin")
    receiver = spawn(a, homes("a"), "receive", "--dir", directory, "--yes", "--json", "--name", "Ada")
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    peer.wait_device("Ada", timeout=15)
    ctl = testbed.track(LineProc([localsendd_bin("localsendctl"), "--socket", peer.socket, "send", path,
                                  "--to", "Ada", "--wait", "--quiet"], "b:localsendctl send",
                                 merge_stderr=True, env=peer._ctl_env()))
    offer = receiver.wait_event(lambda e: e.get("event") == "offer", 60)
    assert (offer["from"], offer["name"], offer["size"]) == ("ld-b", "huge.bin", SIZE), offer
    receiver.wait_event(moving("receive"), 60)
    assert peer.cancel() == "send"
    # The upload's own failure is reported once its partial file is gone: localsendd breaks the connection off,
    # then POSTs /cancel, which is reported too when it comes while the upload is still being taken.
    broke = receiver.wait_event(lambda e: e.get("event") == "failed"
                                and e["error"].startswith("huge.bin from ld-b: "), 20)
    assert broke["error"].endswith("; nothing kept"), broke
    assert re.fullmatch(r"huge\.bin from ld-b: (the upload broke off after \d+ of 2147483648 bytes \(.+\)|"
                        r"the transfer was cancelled); nothing kept", broke["error"]), broke
    failures = [e for e in receiver.events() if e.get("event") == "failed"]
    assert all(e["id"] == offer["id"] for e in failures), receiver.output()
    assert {e["error"] for e in failures} - {broke["error"]} <= {"ld-b cancelled the transfer"}, failures
    assert ctl.wait_exit(20) == 1, ctl.output()
    assert any(l.startswith("Last result: cancelled (") for l in lines(ctl)), ctl.output()
    assert os.listdir(directory) == [], receiver.output()
    assert not [e for e in receiver.events() if e.get("event") == "received"], receiver.output()
    assert receiver.stop(signal.SIGINT, timeout=15) == 130, receiver.output()
    assert os.listdir(directory) == []
