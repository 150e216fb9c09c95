"""`huddle share` in a real browser: headless Chromium in another test host opens the page, its script asks for
the list (and for a PIN when the sharer wants one), and the files it downloads by clicking are byte-identical.
Full run only (Chromium is installed by scripts/test --full)."""

from __future__ import annotations

import os
import secrets

import pytest

from huddle_cli import huddle_bin
from localsend_peer import sha256_file

pytestmark = pytest.mark.full
BED = pytest.mark.hosts(2, default_route=True)


def share(testbed, host, home: str, *args: str):
    """huddle share ARGS --json in host; its first event (sharing, with the page's addresses)."""
    env = dict(os.environ, HUDDLE_HOME=home)
    proc = testbed.track(host.spawn(huddle_bin(), "share", *args, "--json", "--name", "Ada", "--host",
                                    f"huddle-{host.letter}", "--interface", host.ifname, label="a:share", env=env))
    return proc, proc.wait_event(lambda e: e.get("event") == "sharing", 20)


@BED
def test_a_browser_downloads_the_shared_files_byte_identical(testbed, chromium, homes):
    """Two files (100 KiB, a 3 MiB one with a space and an accent in its name): the page lists both under the
    sharer's name, and clicking each downloads it under its own name, byte-identical."""
    a, b = testbed.hosts
    files = homes("files")
    paths = []
    for name, size in (("small.bin", 100 * 1024), ("grand été.jpg", 3 << 20)):
        path = os.path.join(files, name)
        with open(path, "wb") as f:
            f.write(secrets.token_bytes(size))
        paths.append(path)
    sharer, sharing = share(testbed, a, homes("a"), *paths, "--yes", "--count", "2")
    browser = chromium(b)
    assert browser.navigate(sharing["urls"][0]) == 200
    browser.wait_for("document.querySelectorAll('a.file').length === 2", timeout=20)
    assert browser.evaluate("document.getElementById('title').textContent") == "Files from Ada"
    shown = browser.links("a.file")
    assert [text for text, _ in shown] == ["grand été.jpg", "small.bin"], shown
    browser.allow_downloads()
    for path in paths:
        name = os.path.basename(path)
        got = browser.download(f"a.file[download={name!r}]".replace("'", '"'), expected_name=name, timeout=60)
        assert os.path.basename(got) == name
        assert sha256_file(got) == sha256_file(path), name
    done = [sharer.wait_event(lambda e, n=n: e.get("event") == "downloaded" and e.get("file") == n, 20)
            for n in ("small.bin", "grand été.jpg")]
    assert {d["host"] for d in done} == {b.ipv4}
    assert sharer.wait_exit(15) == 0, sharer.output()
    assert browser.outbound() == []


@BED
def test_the_page_asks_for_the_pin_and_a_wrong_one_is_said(testbed, chromium, homes):
    """With --pin the page shows the PIN form; a wrong PIN is said on the page, the right one shows the file."""
    a, b = testbed.hosts
    path = os.path.join(homes("files"), "secret.txt")
    with open(path, "w") as f:
        f.write("the secret")
    _, sharing = share(testbed, a, homes("a"), path, "--yes", "--pin", "2468")
    browser = chromium(b)
    assert browser.navigate(sharing["urls"][0]) == 200
    browser.wait_for("!document.getElementById('pin-form').hidden", timeout=20)
    assert browser.evaluate("document.getElementById('status').textContent") == "The sharing device asks for a PIN."
    browser.fill("#pin", "1111")
    browser.click("#pin-submit")
    browser.wait_for("document.getElementById('status').textContent === 'That PIN is not the right one.'", timeout=20)
    browser.fill("#pin", "2468")
    browser.click("#pin-submit")
    browser.wait_for("document.querySelectorAll('a.file').length === 1", timeout=20)
    assert [text for text, _ in browser.links("a.file")] == ["secret.txt"]


@BED
def test_a_browser_sends_files_in_with_share_receive_after_a_yes(testbed, chromium, homes):
    """`huddle share --receive`: the page's form, with a file chosen as a person does and a click on Send, offers
    it; the sharer is asked (a browser is never taken by --yes) and says yes; the bar fills, the page says all was
    sent, and the file is in --dir byte for byte."""
    from test_huddle_daemon_page import choose_files

    a, b = testbed.hosts
    inbox = homes("inbox")
    source = os.path.join(homes("files"), "from the phone.jpg")
    with open(source, "wb") as f:
        f.write(secrets.token_bytes(2 << 20))
    env = dict(os.environ, HUDDLE_HOME=homes("a"))
    sharer = testbed.track(a.spawn(huddle_bin(), "share", "--receive", "--dir", inbox, "--yes", "--no-qr", "--name",
                                   "Ada", "--host", "huddle-a", "--interface", a.ifname, label="a:share", stdin=True,
                                   env=env))
    url = sharer.wait_line(lambda l: l.startswith("  http://"), 20).strip()
    browser = chromium(b)
    assert browser.navigate(url) == 200
    browser.wait_for("document.getElementById('title').textContent === 'Send files to Ada'", timeout=20)
    assert browser.title() == "Send files to Ada"
    # The browser's own copy of the file, in its host's files.
    copy = os.path.join(browser.dir, "from the phone.jpg")
    with open(source, "rb") as f, open(copy, "wb") as out:
        out.write(f.read())
    choose_files(browser, "#upload-files", [copy])
    browser.click("#upload-submit")
    question = sharer.wait_line(lambda l: l.startswith("? from the phone.jpg"), 20)
    assert "A browser" in question and "not verified" in question, question
    sharer.send("y")
    browser.wait_for("document.getElementById('upload-status').textContent === 'All sent.'", timeout=60)
    assert browser.evaluate("document.querySelectorAll('#uploaded li.done').length") == 1
    sharer.wait_line(lambda l: l.startswith("received ") and "from the phone.jpg" in l, 20)
    assert sha256_file(os.path.join(inbox, "from the phone.jpg")) == sha256_file(source)
    assert browser.outbound() == []
