"""`huddle share`: LocalSend's download API and a web page, taken from another test host over plain HTTP as a
browser does (curl here; the page itself in headless Chromium in test_huddle_share_browser.py, full tier)."""

from __future__ import annotations

import hashlib
import json
import os
import secrets

import pytest

from huddle_cli import huddle_bin

BED = pytest.mark.hosts(2, default_route=True)


def curl(host, *args: str) -> tuple[int, bytes]:
    """curl in host: (HTTP status, body)."""
    out = host.run("curl", "-s", "-o", "-", "-w", "\n%{http_code}", *args, timeout=20, check=False).stdout
    body, _, status = out.rpartition("\n")
    return int(status or 0), body.encode("latin-1", "replace") if isinstance(body, str) else body


def curl_file(host, url: str, path: str) -> int:
    """Downloads url in host into path; the HTTP status."""
    cp = host.run("curl", "-s", "-o", path, "-w", "%{http_code}", url, timeout=30, check=False)
    return int(cp.stdout.strip() or 0)


@BED
def test_a_shared_file_is_listed_and_downloaded_identical_after_the_sharer_lets_the_asker_in(testbed, homes):
    """The page is served with a strict Content-Security-Policy; prepare-download waits for the sharer's yes (--yes
    here), lists the files with their SHA-256, and the download is byte-identical with the file's name; another
    session ID, or the right one from another address, gets nothing."""
    a, b = testbed.hosts
    files = homes("files")
    path = os.path.join(files, "holiday photo.jpg")
    data = secrets.token_bytes(300_000)
    with open(path, "wb") as f:
        f.write(data)
    env = dict(os.environ, HUDDLE_HOME=homes("a"))
    sharer = testbed.track(a.spawn(huddle_bin(), "share", path, "--yes", "--json", "--count", "1", "--name", "Ada",
                                   "--host", "huddle-a", "--interface", a.ifname, label="a:share", env=env))
    sharing = sharer.wait_event(lambda e: e.get("event") == "sharing", 15)
    assert sharing["urls"] == [f"http://{a.ipv4}:53318/"], sharing
    base = sharing["urls"][0]

    page = b.run("curl", "-s", "-D", "-", base, timeout=10).stdout
    assert "HTTP/1.1 200" in page and "<ul id=\"files\">" in page, page
    assert "content-security-policy: default-src 'none'; script-src 'self'" in page.lower(), page

    answer = json.loads(b.run("curl", "-s", "-X", "POST", base + "api/localsend/v2/prepare-download",
                              timeout=10).stdout)
    request = sharer.wait_event(lambda e: e.get("event") == "request", 5)
    assert request["host"] == b.ipv4, request
    assert answer["info"]["alias"] == "Ada" and answer["info"]["download"] is True, answer
    (file,) = answer["files"].values()
    assert (file["fileName"], file["size"], file["sha256"]) == \
        ("holiday photo.jpg", 300_000, hashlib.sha256(data).hexdigest()), file
    url = f"{base}api/localsend/v2/download?sessionId={answer['sessionId']}&fileId={file['id']}"

    assert curl_file(b, url.replace(answer["sessionId"], "0" * 32), os.path.join(files, "nothing")) == 403
    assert curl_file(a, url, os.path.join(files, "from-a")) == 403  # the right session, another address

    headers = b.run("curl", "-s", "-D", "-", "-o", os.path.join(files, "got.jpg"), url, timeout=30).stdout.lower()
    assert "200" in headers.splitlines()[0], headers
    assert "content-disposition: attachment; filename=\"holiday photo.jpg\"; " \
        "filename*=utf-8''holiday%20photo%2ejpg" in headers, headers
    with open(os.path.join(files, "got.jpg"), "rb") as f:
        assert f.read() == data
    done = sharer.wait_event(lambda e: e.get("event") == "downloaded", 10)
    assert (done["file"], done["host"]) == ("holiday photo.jpg", b.ipv4), done
    assert sharer.wait_exit(10) == 0, sharer.output()


@BED
def test_a_pin_is_asked_for_and_wrong_ones_are_limited(testbed, homes):
    """With --pin the list needs the PIN: none gives 401, a wrong one 401, five wrong ones in a minute 429 even with
    the right one after; from another host the right one works at once."""
    a, b = testbed.hosts
    path = os.path.join(homes("files"), "secret.txt")
    with open(path, "w") as f:
        f.write("the secret")
    env = dict(os.environ, HUDDLE_HOME=homes("a"))
    sharer = testbed.track(a.spawn(huddle_bin(), "share", path, "--yes", "--json", "--pin", "2468", "--name", "Ada",
                                   "--host", "huddle-a", "--interface", a.ifname, label="a:share", env=env))
    base = sharer.wait_event(lambda e: e.get("event") == "sharing", 15)["urls"][0] + "api/localsend/v2/prepare-download"
    status, _ = curl(b, "-X", "POST", base)
    assert status == 401
    for _ in range(5):
        assert curl(b, "-X", "POST", base + "?pin=1111")[0] == 401
    assert curl(b, "-X", "POST", base + "?pin=2468")[0] == 429
    status, body = curl(a, "-X", "POST", base + "?pin=2468")
    assert status == 200, body
    assert [f["fileName"] for f in json.loads(body)["files"].values()] == ["secret.txt"]
