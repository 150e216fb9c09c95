"""Issue 38: the daemon's page for a phone, on three test hosts with the README's commands (no --host, no
--interface, no --yes). `huddle ui --phone` on Ada's host prints the page's LAN address with a one-time pass and its
QR code (with files: offered for the phone to download); the local page shows the same code. A "phone" on the second host opens it (nothing without the pass, not
even the script), offers a file as the page's script does, the offer waits for `huddle answer` on Ada's host, and
after the yes the file lands in Ada's --dir byte for byte. The third host, given the same pass, is refused (the
first browser holds it); a new code makes the old pass open nothing."""

from __future__ import annotations

import json
import os
import re
import secrets
import threading

import pytest

from test_huddle_daemon import User
from test_huddle_daemon_page import fetch, page_url
from test_huddle_share import curl
from test_huddle_share_receive import offer
from testbed import wait_until


def phone_code(user, *files: str) -> str:
    """`huddle ui --phone [FILE…]`: the page's address with a new pass, then a QR code; the address."""
    shown = user.run("ui", "--phone", *files)
    assert shown.wait_exit(20) == 0, shown.output()
    lines = [l for _, l in shown.lines]
    assert re.fullmatch(r"http://[0-9.]+:53318/\?pass=[0-9a-f]{32}", lines[0]), lines
    assert len(lines) > 12 and any("█" in l or "▀" in l for l in lines[1:]), lines  # the QR code, in blocks
    return lines[0]


def download_offered(phone, base: str, pass_: str, name: str, data: bytes, downloads: str, daemon) -> None:
    """The phone's page as its script downloads: the list with the pass (one file, `name`, `data`'s size), then
    the file, byte for byte."""
    status, body = curl(phone, "-X", "POST", f"{base}api/localsend/v2/prepare-download?pass={pass_}")
    assert status == 200, (status, body, daemon.output())
    listed = json.loads(body)
    (file_id, meta), = listed["files"].items()
    assert meta["fileName"] == name and meta["size"] == len(data), meta
    download = os.path.join(downloads, name)
    got = phone.run("curl", "-s", "-o", download, "-w", "%{http_code}",
                    f"{base}api/localsend/v2/download?sessionId={listed['sessionId']}&fileId={file_id}"
                    f"&pass={pass_}", timeout=30, check=False)
    assert got.stdout.strip() == "200", got.stdout
    with open(download, "rb") as f:
        assert f.read() == data


@pytest.mark.hosts(3, ifname="eth0")
def test_a_phone_opens_the_page_by_its_code_and_sends_a_file_in_after_the_yes(testbed, homes):
    a, phone, other = testbed[0], testbed[1], testbed[2]
    ada = User(a, homes, "DaAda")
    inbox = homes("inbox")
    daemon = ada.daemon("--dir", inbox)
    base = f"http://{a.ipv4}:53318/"

    # Before any code is shown, the page opens to nobody (once LocalSend's servers listen, just after the
    # daemon's first line).
    wait_until(lambda: curl(phone, base)[0] != 0, 20, what="the page for a phone to listen")
    status, body = curl(phone, base)
    assert status == 403 and b"scan it" in body, (status, body)
    link = phone_code(ada)
    assert link.startswith(base), link
    pass_ = link.rpartition("=")[2]

    # The local page shows the same code, as a QR image and the address.
    page = fetch(a, page_url(ada))
    assert page["status"] == 200 and 'id="phone"' in page["body"], page
    assert 'src="data:image/png;base64,' in page["body"] and link in page["body"], page["body"]

    # Without the pass, or with another, nothing: not the page, not its script, not the API.
    for url in [base, base + "share.js", base + "api/localsend/v2/info", base + "?pass=" + "0" * 32]:
        status, body = curl(phone, url)
        assert status == 403 and b"<form" not in body, (url, status, body)
    status, body = curl(phone, link)
    assert status == 200 and b'<form id="upload-form">' in body, (status, body)
    assert f'src="/share.js?pass={pass_}"'.encode() in body, body
    status, script = curl(phone, base + "share.js?pass=" + pass_)
    assert status == 200 and b"prepare-upload" in script, status
    # The first browser holds the pass: another device with it is refused, and the API too.
    status, body = curl(other, link)
    assert status == 403 and b"already used by another device" in body, (status, body)

    data = secrets.token_bytes(150_000)
    source = os.path.join(homes("files"), "from the phone.jpg")
    with open(source, "wb") as f:
        f.write(data)
    result: dict = {}
    # The script adds the pass to every request; so does this offer.
    waiting = threading.Thread(target=lambda: result.update(answer=curl(
        phone, "-X", "POST", "-H", "Content-Type: application/json", "--data-binary",
        offer("from the phone.jpg", len(data)), "--max-time", "60",
        f"{base}api/localsend/v2/prepare-upload?pass={pass_}")))
    waiting.start()
    daemon.wait_line(lambda l: l.startswith("question 1 waits"), 20)
    listing = ada.run("answer")
    assert listing.wait_exit(20) == 0, listing.output()
    assert any("from the phone.jpg" in l and "A browser" in l for _, l in listing.lines), listing.output()
    answer = ada.run("answer", "1", "yes")
    assert answer.wait_exit(20) == 0, answer.output()
    waiting.join(30)
    status, body = result["answer"]
    assert status == 200, (status, body, daemon.output())
    accepted = json.loads(body)
    token = accepted["files"]["f0"]
    upload = (f"{base}api/localsend/v2/upload?sessionId={accepted['sessionId']}&fileId=f0&token={token}"
              f"&pass={pass_}")
    status, _ = curl(other, "-X", "POST", "--data-binary", "forged", upload)
    assert status == 403, status
    status, _ = curl(phone, "-X", "POST", "--data-binary", f"@{source}", upload)
    assert status == 200, daemon.output()
    daemon.wait_line(lambda l: "from the phone.jpg" in l and l.startswith("received "), 20)
    with open(os.path.join(inbox, "from the phone.jpg"), "rb") as f:
        assert f.read() == data

    # A new code, with a file for the phone to download: the old pass opens nothing, even for the phone that held
    # it; the new one opens the list and the file without a question (the person showed the code).
    offered = os.path.join(homes("for-phone"), "menu.pdf")
    menu = secrets.token_bytes(70_000)
    with open(offered, "wb") as f:
        f.write(menu)
    fresh = phone_code(ada, offered)
    assert fresh != link
    status, body = curl(phone, link)
    assert status == 403 and b"not the page's any more" in body, (status, body)
    fresh_pass = fresh.rpartition("=")[2]
    status, page = curl(other, fresh)
    assert status == 200 and b'id="files"' in page, (status, page)
    download_offered(other, base, fresh_pass, "menu.pdf", menu, homes("downloads"), daemon)
    # The phone that held the old pass gets neither the list nor the file.
    status, _ = curl(phone, "-X", "POST", f"{base}api/localsend/v2/prepare-download?pass={pass_}")
    assert status == 403, status
    assert not any(l.startswith("question 2") for _, l in daemon.lines), daemon.output()
    assert daemon.stop() == 0, daemon.output()


@pytest.mark.hosts(2, ifname="eth0")
def test_files_chosen_on_the_web_page_are_offered_to_the_phone_with_a_new_code(testbed, homes):
    """The page's "Files the phone may download", as its script does it: each file uploaded to /phone-file in one
    batch, then /phone with the batch shows a new code; the phone (another host) lists and downloads the file byte for
    byte with that code's pass. A code shown without files offers none and its batch's files are gone from disk."""
    ada = User(testbed[0], homes, "DaAda")
    daemon = ada.daemon()
    url = page_url(ada)
    origin, _, query = url.partition("/?")
    notes = os.path.join(homes("chosen"), "notes.txt")
    data = secrets.token_bytes(40_000)
    with open(notes, "wb") as f:
        f.write(data)
    batch = secrets.token_hex(8)
    uploaded = fetch(ada.host, f"{origin}/phone-file?{query}&batch={batch}&name=notes.txt", "POST", notes)
    assert uploaded["status"] == 200, uploaded
    uploads = os.path.join(ada.home, "uploads")
    assert os.listdir(uploads) == [f"phone-{batch}"], os.listdir(uploads)
    shown = fetch(ada.host, f"{origin}/phone?{query}&batch={batch}", "POST")
    assert shown["status"] == 303 and shown["headers"]["Location"].endswith("#phone"), shown
    page = fetch(ada.host, url)["body"]
    link = re.search(r'<span class="id">(http://[0-9.]+:53318/\?pass=([0-9a-f]{32}))</span>', page)
    assert link, page
    base, pass_ = link.group(1).partition("?")[0], link.group(2)

    phone = testbed[1]
    download_offered(phone, base, pass_, "notes.txt", data, homes("downloads"), daemon)

    # A new code from the plain form (no files): the old pass opens nothing, the batch is gone from disk.
    again = fetch(ada.host, f"{origin}/phone?{query}", "POST")
    assert again["status"] == 303, again
    assert os.listdir(uploads) == [], os.listdir(uploads)
    status, _ = curl(phone, "-X", "POST", f"{base}api/localsend/v2/prepare-download?pass={pass_}")
    assert status == 403, status
    bad = fetch(ada.host, f"{origin}/phone?{query}&batch={secrets.token_hex(8)}", "POST")
    assert bad["status"] == 400 and bad["body"] == "no such batch of files\n", bad
    assert daemon.stop() == 0, daemon.output()


@pytest.mark.full
@pytest.mark.hosts(2, ifname="eth0")
def test_in_chromium_the_page_shows_a_code_and_a_phone_sends_a_file_through_its_page(testbed, homes, chromium):
    """Headless Chromium drives both ends: on Ada's host the web page's "Show a code for a phone" button shows the
    QR code; a phone-sized Chromium on the other host opens the address under it, chooses a file and sends it; the
    offer is answered with `huddle answer`, the page says all was sent, and the file is in Ada's --dir byte for
    byte. Screenshots of both go to $HUDDLE_SCREENSHOTS (docs/images)."""
    from test_huddle_daemon_page import choose_files, screenshot
    from test_huddle_transfer import sha256

    a, b = testbed[0], testbed[1]
    ada = User(a, homes, "DaAda")
    inbox = homes("inbox")
    daemon = ada.daemon("--dir", inbox)
    shots = os.environ.get("HUDDLE_SCREENSHOTS") or homes("shots")
    os.makedirs(shots, exist_ok=True)

    desk = chromium(a, watch_outbound=False)
    assert desk.navigate(page_url(ada)) == 200
    desk.wait_for("!!document.querySelector('#phone button')", 20)
    desk.click("#phone button")
    desk.wait_for("!!document.querySelector('#phone img.qr') && document.querySelector('#phone img.qr').complete", 30)
    assert desk.evaluate("document.querySelector('#phone img.qr').naturalWidth") > 100
    link = desk.evaluate("document.querySelector('#phone .id').textContent")
    assert re.fullmatch(rf"http://{re.escape(a.ipv4)}:53318/\?pass=[0-9a-f]{{32}}", link), link
    desk.cdp("Emulation.setDeviceMetricsOverride", {"width": 900, "height": 1000, "deviceScaleFactor": 1,
                                                    "mobile": False})
    desk.evaluate("document.getElementById('phone').scrollIntoView()")
    screenshot(desk, os.path.join(shots, "web-phone-code.png"))

    phone = chromium(b)
    phone.cdp("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 700, "deviceScaleFactor": 2,
                                                     "mobile": True})
    assert phone.navigate(link) == 200
    phone.wait_for("document.getElementById('title').textContent === 'Send files to DaAda'", timeout=20)
    copy = os.path.join(phone.dir, "from the phone.jpg")
    with open(copy, "wb") as f:
        f.write(secrets.token_bytes(1 << 20))
    choose_files(phone, "#upload-files", [copy])
    phone.click("#upload-submit")
    daemon.wait_line(lambda l: l.startswith("question 1 waits"), 30)
    answer = ada.run("answer", "1", "yes")
    assert answer.wait_exit(20) == 0, answer.output()
    phone.wait_for("document.getElementById('upload-status').textContent === 'All sent.'", timeout=60)
    assert phone.evaluate("document.querySelectorAll('#uploaded li.done').length") == 1
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(phone, os.path.join(shots, "phone-page.png"))
    daemon.wait_line(lambda l: l.startswith("received ") and "from the phone.jpg" in l, 20)
    assert sha256(os.path.join(inbox, "from the phone.jpg")) == sha256(copy)
    assert phone.outbound() == []
    assert not [m for m in phone.console if m.level == "error"], phone.console
    assert daemon.stop() == 0, daemon.output()
