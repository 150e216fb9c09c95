"""Issue 38: `huddle share --receive` lets a browser on another test host send files in, asked first like any other
sender: the page carries the upload form, the browser's prepare-upload (as the page's script sends it) waits for the
person's answer, a yes takes the file byte for byte into --dir, a no refuses it with 403 and nothing lands, and
`--yes` does not take from a browser (it has no certificate)."""

from __future__ import annotations

import json
import os
import secrets
import threading

from huddle_cli import huddle_bin
from test_huddle_share import BED, curl


def offer(name: str, size: int) -> str:
    """A prepare-upload body as the page's script sends it."""
    info = {"alias": "A browser", "version": "2.1", "deviceModel": None, "deviceType": "web",
            "fingerprint": secrets.token_hex(16), "port": None, "protocol": "http", "download": False}
    return json.dumps({"info": info, "files": {"f0": {"id": "f0", "fileName": name, "size": size,
                                                       "fileType": "image/jpeg"}}})


def prepare(host, base: str, body: str, result: dict) -> None:
    result["answer"] = curl(host, "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", body,
                            "--max-time", "60", base + "api/localsend/v2/prepare-upload")


@BED
def test_a_browser_sends_a_file_in_after_the_person_says_yes_and_a_no_refuses(testbed, homes):
    a, b = testbed.hosts
    inbox = homes("inbox")
    env = dict(os.environ, HUDDLE_HOME=homes("a"))
    sharer = testbed.track(a.spawn(huddle_bin(), "share", "--receive", "--dir", inbox, "--yes", "--name", "Ada",
                                   "--no-qr", "--host", "huddle-a", "--interface", a.ifname, label="a:share",
                                   stdin=True, env=env))
    sharer.wait_line(lambda l: l == f"Receiving into {inbox}. On the other device open:", 15)
    base = sharer.wait_line(lambda l: l.startswith("  http://"), 5).strip()
    assert base == f"http://{a.ipv4}:53318/", base

    status, page = curl(b, base)
    assert status == 200 and b'<form id="upload-form">' in page and b'id="files"' not in page, page

    data = secrets.token_bytes(200_000)
    source = os.path.join(homes("files"), "photo.jpg")
    with open(source, "wb") as f:
        f.write(data)
    result: dict = {}
    waiting = threading.Thread(target=prepare, args=(b, base, offer("photo.jpg", len(data)), result))
    waiting.start()
    question = sharer.wait_line(lambda l: l.startswith("? ") and "photo.jpg" in l, 20)
    assert "A browser" in question, question
    sharer.send("y")
    waiting.join(30)
    status, body = result["answer"]
    assert status == 200, (status, body, sharer.output())
    answer = json.loads(body)
    token = answer["files"]["f0"]
    # Hostile: a wrong token, or the page reached under another name (DNS rebinding), is refused; nothing lands.
    status, _ = curl(b, "-X", "POST", "--data-binary", "forged",
                     f"{base}api/localsend/v2/upload?sessionId={answer['sessionId']}&fileId=f0&token=wrong")
    assert status == 403, status
    status, _ = curl(b, "-X", "POST", "-H", "Host: evil.example", "-H", "Content-Type: application/json",
                     "--data-binary", offer("rebound.jpg", 10), base + "api/localsend/v2/prepare-upload")
    assert status == 421, status
    assert os.listdir(inbox) == [] or not [n for n in os.listdir(inbox) if not n.startswith(".")], os.listdir(inbox)
    status, _ = curl(b, "-X", "POST", "--data-binary", f"@{source}",
                     f"{base}api/localsend/v2/upload?sessionId={answer['sessionId']}&fileId=f0&token={token}")
    assert status == 200, sharer.output()
    sharer.wait_line(lambda l: l.startswith("received ") and "photo.jpg" in l, 20)
    with open(os.path.join(inbox, "photo.jpg"), "rb") as f:
        assert f.read() == data

    result = {}
    waiting = threading.Thread(target=prepare, args=(b, base, offer("unwanted.jpg", 10), result))
    waiting.start()
    sharer.wait_line(lambda l: l.startswith("? ") and "unwanted.jpg" in l, 20)
    sharer.send("n")
    waiting.join(30)
    assert result["answer"][0] == 403, result
    assert sorted(os.listdir(inbox)) == ["photo.jpg"], os.listdir(inbox)
    # Stopped by a signal, as Ctrl-C does: "interrupted", exit 130.
    assert sharer.stop() == 130, sharer.output()
