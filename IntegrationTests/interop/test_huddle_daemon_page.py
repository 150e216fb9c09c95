"""Issue 38: the daemon's web page on test hosts, with the README's commands only (no --host, no --yes).

Ada's and Bob's daemons run and pair by a link; `huddle ui --url` on Ada's host prints
`http://127.0.0.1:PORT/?token=T`, and the page as served (before any script) lists DaBob. Without the token,
with another token, under another Host or from another Origin every request is refused with 403 and nothing of
the page. A stranger's send (Cy, not paired) waits on the page with Accept and Decline; the page's form accepts it
and the file lands. In the full run, headless Chromium opens the page, is photographed in light and dark and on a
phone's screen, and accepts an offer with a real click.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import shlex

import pytest

from test_huddle_chat import code_of
from test_huddle_daemon import User, pair_by_link
from test_huddle_transfer import make_file, sha256
from testbed import wait_until

FETCH = r"""
import http.client, json, sys
url, method, headers = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
body = open(sys.argv[4], "rb").read() if len(sys.argv) > 4 else None
host, _, rest = url.removeprefix("http://").partition("/")
name, _, port = host.rpartition(":")
connection = http.client.HTTPConnection(name, int(port), timeout=10)
connection.putrequest(method, "/" + rest, skip_host=True)
connection.putheader("Host", headers.pop("Host", host))
for key, value in headers.items():
    connection.putheader(key, value)
if body is not None:
    connection.putheader("Content-Length", str(len(body)))
connection.endheaders(body)
response = connection.getresponse()
print(json.dumps({"status": response.status, "headers": dict(response.getheaders()),
                  "body": response.read().decode("utf-8", "replace")}))
"""


def fetch(host, url: str, method: str = "GET", body: str | None = None, **headers: str) -> dict:
    """One HTTP request from inside `host` (the page is on that host's loopback): status, headers, body (the
    request's, from the file `body`)."""
    argv = ["python3", "-c", FETCH, url, method, json.dumps(headers)] + ([body] if body else [])
    done = host.run(*argv, timeout=90)
    return json.loads(done.stdout)


def paired_daemons(testbed, homes, ada_config: str = ""):
    """DaAda's and DaBob's daemons, paired by link; `ada_config` is written to Ada's config.toml first."""
    a, b = testbed[0], testbed[1]
    ada, bob = User(a, homes, "DaAda"), User(b, homes, "DaBob")
    if ada_config:
        config = os.path.join(ada.home, ".config", "huddle")
        os.makedirs(config, exist_ok=True)
        with open(os.path.join(config, "config.toml"), "w") as f:
            f.write(ada_config)
    inbox = homes("bob-inbox")
    daemons = [ada.daemon(), bob.daemon("--dir", inbox)]
    pair_by_link(ada, bob, daemons[1])
    return ada, bob, daemons


def wait_connected(chat, name: str, timeout: float = 40) -> None:
    """Asks `chat` for `/peers` until it lists `name` as connected."""
    def connected() -> bool:
        mark = len(chat.lines)
        chat.send("/peers")
        try:
            chat.wait_line(lambda l: l.strip().startswith(name) and l.endswith("— connected"), 3, start=mark)
            return True
        except AssertionError:
            return False
    wait_until(connected, timeout, what=f"{name} connected in the chat")


def page_url(user) -> str:
    ui = user.run("ui", "--url")
    assert ui.wait_exit(20) == 0, ui.output()
    lines = [l for _, l in ui.lines]
    assert len(lines) == 1 and re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64}", lines[0]), lines
    return lines[0]


def stranger_offer(testbed, homes, name: str = "DaCy"):
    """Cy, on a third host and paired with nobody, sends a file to DaAda: Ada's daemon asks whether to let Cy
    connect (the code to compare on the page), and Cy answers yes to the same code on Cy's side."""
    cy = User(testbed[2], homes, name)
    path = os.path.join(homes("cy-files"), "from-cy.bin")
    digest = make_file(path, 300_000)
    send = cy.run("send", path, "--to", "DaAda", stdin=True)
    code = code_of(send, 30)
    send.send("y")
    return send, digest, code


@pytest.mark.hosts(3, ifname="eth0")
def test_huddle_ui_url_gives_a_page_that_lists_the_paired_device_and_refuses_everyone_else(testbed, huddle, homes):
    ada, bob, daemons = paired_daemons(testbed, homes)
    a = testbed[0]
    url = page_url(ada)
    page = fetch(a, url)
    assert page["status"] == 200, page
    assert page["headers"]["Content-Type"] == "text/html; charset=utf-8"
    assert '<span class="name">DaBob</span>' in page["body"], page["body"]
    assert "paired" in page["body"] and "Receiving into" in page["body"]
    assert page["headers"]["Content-Security-Policy"].startswith("default-src 'none'")

    base, token = url.split("?token=")
    refused = {
        "no token": fetch(a, base),
        "another token": fetch(a, base + "?token=" + "0" * 64),
        "another Host": fetch(a, url, Host="rebound.example:80"),
        "another port in Host": fetch(a, url, Host="127.0.0.1:1"),
        "another Origin": fetch(a, base + "answer?token=" + token + "&question=1&accept=yes", "POST",
                                Origin="http://rebound.example"),
    }
    for why, answer in refused.items():
        assert answer["status"] == 403, (why, answer)
        assert "DaBob" not in answer["body"], (why, answer)
    state = json.loads(fetch(a, base + "state.json?token=" + token)["body"])
    assert [(d["name"], d["protocol"], d["trust"], d["here"]) for d in state["devices"]] == [
        ("DaBob", "huddle", "paired", True)], state

    # A stranger's offer waits on the page; its Accept form takes it.
    send, digest, code = stranger_offer(testbed, homes)
    asked = wait_until(lambda: json.loads(fetch(a, base + "state.json?token=" + token)["body"])["questions"], 60)
    assert asked, daemons[0].output()
    question = asked[0]
    assert any(line.startswith("Pair with ") and f"Code: {code} " in line for line in question["lines"]), \
        (code, question)
    assert not any("[y/n]" in line for line in question["lines"]), question
    shown = fetch(a, url)["body"]
    assert f'id="question-{question["id"]}"' in shown and "Accept</button>" in shown, shown
    accepted = fetch(a, f'{base}answer?token={token}&question={question["id"]}&accept=yes', "POST",
                     Origin=base.rstrip("/"))
    assert accepted["status"] == 303 and accepted["headers"]["Location"] == "/?token=" + token, accepted
    assert send.wait_exit(60) == 0, send.output() + daemons[0].output()
    landed = os.path.join(ada.home, "Downloads", "from-cy.bin")
    assert sha256(landed) == digest, daemons[0].output()
    state = json.loads(fetch(a, base + "state.json?token=" + token)["body"])
    assert state["questions"] == []
    assert [(e["kind"], e["path"]) for e in state["received"]] == [("file", landed)], state["received"]
    history = ada.run("history")
    assert history.wait_exit(20) == 0, history.output()
    assert [l.split("  ", 1)[1] for _, l in history.lines] == [f"received {landed}"], history.output()
    records = ada.run("history", "--json")
    assert records.wait_exit(20) == 0, records.output()
    assert [(r["kind"], r["protocol"], r["path"]) for r in map(json.loads, (l for _, l in records.lines))] == \
        [("file", "huddle", landed)]

    # A file for DaBob, who is away, uploaded to the page: queued, and its upload kept until delivered.
    assert daemons[1].stop() == 0, daemons[1].output()
    away = os.path.join(homes("page-files"), "while-away.bin")
    away_digest = make_file(away, 400_000)
    queued = fetch(a, f"{base}upload?token={token}&to=DaBob&name=while-away.bin", "POST", body=away,
                   Origin=base.rstrip("/"))
    assert queued["status"] == 200, queued
    result = json.loads(queued["body"])
    assert result["status"] == 0 and result["queued"] is True, result
    uploads = os.path.join(ada.home, "uploads")
    assert len(os.listdir(uploads)) == 1
    assert [e["file"] for e in json.loads(fetch(a, base + "state.json?token=" + token)["body"])["outbox"]] == \
        ["while-away.bin"]
    daemons[1] = bob.daemon("--dir", os.path.join(os.path.dirname(bob.home), "bob-inbox"))
    landed_later = os.path.join(os.path.dirname(bob.home), "bob-inbox", "while-away.bin")
    wait_until(lambda: os.path.exists(landed_later) and not os.listdir(uploads), 90,
               what="the queued upload delivered and removed")
    assert sha256(landed_later) == away_digest

    # A new daemon, a new token: the old address is refused.
    daemons[0].stop()
    daemons[0] = ada.daemon()
    new_url = page_url(ada)
    assert new_url.split("?token=")[1] != token
    old = fetch(a, new_url.split("?token=")[0] + "?token=" + token)
    assert old["status"] == 403, old
    for proc in daemons:
        assert proc.stop() == 0, proc.output()


def screenshot(browser, path: str) -> bytes:
    shot = browser.cdp("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, timeout=30)
    data = base64.b64decode(shot["data"])
    with open(path, "wb") as out:
        out.write(data)
    return data


def choose_files(browser, selector: str, paths: list[str]) -> None:
    """Sets a file input's files as a person choosing them would (DevTools' DOM.setFileInputFiles)."""
    root = browser.cdp("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    node = browser.cdp("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    browser.cdp("DOM.setFileInputFiles", {"nodeId": node, "files": paths})


@pytest.mark.full
@pytest.mark.hosts(3, ifname="eth0")
def test_the_page_in_chromium_sends_files_with_progress_follows_the_daemon_live_and_accepts_by_a_click(
        testbed, huddle, homes, chromium):
    # A limit on Ada's sends, so that the send to DaBob takes seconds and its progress shows on the page.
    ada, bob, daemons = paired_daemons(testbed, homes, ada_config='limit-rate = "2M"\n')
    a = testbed[0]
    url = page_url(ada)
    browser = chromium(a, watch_outbound=False)
    assert browser.navigate(url) == 200
    assert "DaBob" in browser.text()
    assert browser.title() == "Huddle — DaAda"
    browser.wait_for("document.getElementById('live-status').textContent.startsWith('Live')", 20)
    shots = os.environ.get("HUDDLE_SCREENSHOTS") or homes("shots")
    os.makedirs(shots, exist_ok=True)

    # Two files chosen and sent to DaBob from the page: an image (a thumbnail) and 5 MB of bytes.
    files = homes("page-files")
    image = os.path.join(files, "snapshot.png")
    screenshot(browser, image)
    big = os.path.join(files, "big.bin")
    big_digest = make_file(big, 5_000_000)
    choose_files(browser, "#send-files", [image, big])
    assert browser.evaluate("document.getElementById('send-to').value") == "DaBob"
    browser.click("#send-form button")
    browser.wait_for("document.querySelectorAll('#sends li.done').length === 2", 90)
    # Once uploaded, each bar followed the daemon's send to DaBob (the answer's progress lines) to the file's size.
    sent = browser.evaluate("[...document.querySelectorAll('#sends progress')].map(p => p.dataset.sent).sort()")
    assert sent == sorted([str(os.path.getsize(image)), "5000000"]), sent
    notes = browser.evaluate("[...document.querySelectorAll('#sends li .detail')].map(n => n.textContent)")
    assert all("verified by the receiver" in n for n in notes), notes
    assert browser.evaluate("document.querySelector('#sends img.thumb').naturalWidth") > 0
    assert browser.evaluate("[...document.querySelectorAll('#sends progress')].every(p => p.value === p.max)")
    inbox = os.path.join(os.path.dirname(bob.home), "bob-inbox")
    assert sha256(os.path.join(inbox, "big.bin")) == big_digest, os.listdir(inbox)
    assert sha256(os.path.join(inbox, "snapshot.png")) == sha256(image)
    assert os.listdir(os.path.join(ada.home, "uploads")) == [], "sent uploads are removed"

    # The chat: Bob chats through his daemon (which dials DaAda); a line typed into the page's form reaches him, his
    # answer appears on the page by itself.
    bob_chat = bob.run("chat", stdin=True)
    bob_chat.wait_line(lambda l: l.startswith('Chatting in "TypingTogether" as DaBob'), 20)
    wait_connected(bob_chat, "DaAda")
    browser.evaluate("document.querySelector('#say input').value = 'Hello from the page, Bob'")
    browser.click("#say button")
    bob_chat.wait_line(lambda l: l == "DaAda: Hello from the page, Bob", 20)
    bob_chat.send("Got it, thanks!")
    browser.wait_for("[...document.querySelectorAll('#chat .said')].some(n => n.textContent === 'Got it, thanks!')",
                     30)
    assert browser.evaluate("document.querySelector('#say input').value") == ""

    # Files for a phone, chosen on the page: a new code offers them (its QR image shown); the phone's page, from
    # Bob's host, lists the file.
    menu = os.path.join(files, "menu.txt")
    with open(menu, "wb") as out:
        out.write(b"soup of the day\n" * 100)
    choose_files(browser, "#phone-pick", [menu])
    browser.click("#phone-files button")
    browser.wait_for("document.querySelector('#phone-files .detail').textContent === "
                     "'1 file offered with the new code.'", 30)
    browser.wait_for("!!document.querySelector('#phone img.qr')", 20)
    link = browser.evaluate("document.querySelector('#phone .id').textContent")
    assert re.fullmatch(r"http://[0-9.]+:53318/\?pass=[0-9a-f]{32}", link), link
    base, _, pass_ = link.partition("?pass=")
    listed = bob.host.run("curl", "-s", "-X", "POST", f"{base}api/localsend/v2/prepare-download?pass={pass_}",
                          timeout=30)
    assert '"fileName":"menu.txt"' in listed.stdout.replace(" ", ""), listed.stdout

    # A stranger's connection appears on the open page by itself (the WebSocket), and a click accepts it.
    send, digest, code = stranger_offer(testbed, homes)
    browser.wait_for("!!document.querySelector('#questions button.accept')", 60)
    assert f"Code: {code} " in browser.text()
    # Colours from the stylesheet, not the browser's defaults: the page's own CSS loaded under the CSP.
    assert browser.evaluate("getComputedStyle(document.querySelector('button.accept')).backgroundColor") \
        == "rgb(31, 157, 85)"
    screenshot(browser, os.path.join(shots, "web-light.png"))
    browser.cdp("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    assert browser.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(20, 23, 28)"
    screenshot(browser, os.path.join(shots, "web-dark.png"))
    browser.cdp("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
    browser.cdp("Emulation.setDeviceMetricsOverride",
                {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    # Nothing wider than the phone's screen.
    assert browser.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(browser, os.path.join(shots, "web-phone.png"))

    browser.click("#questions button.accept")
    browser.wait_for("!document.querySelector('#questions') && location.pathname === '/'", 30)
    assert send.wait_exit(60) == 0, send.output() + daemons[0].output()
    assert sha256(os.path.join(ada.home, "Downloads", "from-cy.bin")) == digest
    assert not [m for m in browser.console if m.level == "error"], browser.console
    for proc in daemons:
        assert proc.stop() == 0, proc.output()


@pytest.mark.hosts(2, ifname="eth0")
def test_send_with_huddle_from_the_file_managers_opens_the_page_with_the_files_and_a_device_button_sends_them(
        testbed, huddle, homes):
    """`huddle daemon --install-unit` also writes the desktop entry and the file managers' hooks; Nautilus's script
    run as Nautilus runs it (the selected files as arguments) and Dolphin's service menu's Exec line (its %F the
    files) each open the page with those files, and a device's button on it sends them."""
    ada, bob, daemons = paired_daemons(testbed, homes)
    a = testbed[0]
    installed = ada.run("daemon", "--install-unit")
    assert installed.wait_exit(20) == 0, installed.output()
    data = os.path.join(ada.home, ".local", "share")
    script = os.path.join(data, "nautilus", "scripts", "Send with Huddle")
    menu = os.path.join(data, "kio", "servicemenus", "huddle-send.desktop")
    entry = os.path.join(data, "applications", "huddle-send.desktop")
    uca = os.path.join(ada.home, ".config", "Thunar", "uca.xml")
    for path in (script, menu, entry, uca):
        assert os.path.exists(path) and path in installed.output(), (path, installed.output())
    assert os.access(script, os.X_OK) and os.access(menu, os.X_OK)
    assert "<unique-id>huddle-send</unique-id>" in open(uca).read()
    opened = os.path.join(homes("browser"), "opened")
    browser = os.path.join(homes("browser"), "browser")
    with open(browser, "w") as out:
        out.write(f'#!/bin/sh\necho "$1" >> {opened}\n')
    os.chmod(browser, 0o755)
    env = dict(os.environ, HOME=ada.home, HUDDLE_HOME=ada.home, XDG_RUNTIME_DIR=ada.runtime, BROWSER=browser)
    files = homes("picked")
    report, notes = os.path.join(files, "report.bin"), os.path.join(files, "notes.bin")
    digests = {path: make_file(path, size) for path, size in ((report, 250_000), (notes, 1_000))}

    nautilus = a.spawn(script, report, notes, label="a:nautilus", env=env)
    assert nautilus.wait_exit(20) == 0, nautilus.output()
    exec_line = next(l for l in open(menu).read().splitlines() if l.startswith("Exec="))
    argv = [report if word == "%F" else word for word in shlex.split(exec_line.removeprefix("Exec="))]
    dolphin = a.spawn(*argv, label="a:dolphin", env=env)
    assert dolphin.wait_exit(20) == 0, dolphin.output()
    urls = open(opened).read().split()
    assert len(urls) == 2 and all(re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64}&stage=[0-9a-f]{16}", u)
                                  for u in urls), urls

    page = fetch(a, urls[0])["body"]
    assert "Send these files" in page and "report.bin" in page and "notes.bin" in page, page
    action = html.unescape(re.search(r'action="(/send\?[^"]*&amp;to=DaBob)"', page).group(1))
    base = urls[0].split("?")[0]
    sent = fetch(a, base.rstrip("/") + action, "POST", Origin=base.rstrip("/"))
    assert sent["status"] == 303, sent
    after = fetch(a, urls[0])["body"]
    assert "sent report.bin to DaBob: verified by the receiver" in after, after
    inbox = os.path.join(os.path.dirname(bob.home), "bob-inbox")
    for path, digest in digests.items():
        assert sha256(os.path.join(inbox, os.path.basename(path))) == digest
    second = fetch(a, urls[1])["body"]
    assert "report.bin" in second and "notes.bin" not in second.split("<h2>Devices")[0]
    for proc in daemons:
        assert proc.stop() == 0, proc.output()
