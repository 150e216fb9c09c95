"""Self-tests of the headless Chromium fixture (browser.py): Chromium in test host b opens a page
that a small Python server in host a serves, runs its JavaScript (a POST that fetches a JSON list
of files, rendered as links), downloads two files by clicking them byte-identical, submits a form,
and sends nothing beyond the bed.

No Huddle involved: these prove the fixture and the bed, so a failing Huddle browser test points
at Huddle. Full run only (Chromium is installed by scripts/test --full).
"""

from __future__ import annotations

import json
import os
import secrets
import sys

import pytest

from browser import BrowserError, JavaScriptError
from localsend_peer import sha256_file
from testbed import missing_tools, run, wait_until

pytestmark = pytest.mark.full

PORT = 8080
# A file server in about forty lines: GET / is a page whose script POSTs {"want": "files"} to
# /api/list and renders the JSON list it gets as links; GET /files/<n> sends file n as an
# attachment named by Content-Disposition (filename* in UTF-8, an ASCII filename beside it);
# POST /submit takes a form. With a fourth argument (a PEM file with certificate and key) it speaks
# HTTPS. Every request is printed as a JSON line (method, path, client,
# content type, body) for the test to check.
SERVER = r'''
import json, socketserver, ssl, sys, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
address, port, files = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
cert = sys.argv[4] if len(sys.argv) > 4 else None  # PEM with certificate and key: serve HTTPS
PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Shared files</title></head>
<body><h1>Shared files</h1><ul id="files"></ul>
<form id="note" method="post" action="/submit"><input id="note-text" name="note">
<button id="send" type="submit">Send</button></form>
<script>
fetch("/api/list", {method: "POST", headers: {"Content-Type": "application/json"},
                    body: JSON.stringify({want: "files"})})
  .then(r => { if (!r.ok) throw new Error("list: HTTP " + r.status); return r.json(); })
  .then(list => {
    for (const f of list) {
      const li = document.createElement("li"), a = document.createElement("a");
      a.href = f.url; a.textContent = f.name; li.append(a, " (" + f.size + " bytes)");
      document.getElementById("files").append(li);
    }
    console.log("rendered " + list.length + " files");
  })
  .catch(e => console.error(e.message));
</script></body></html>"""
class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args): pass
    def reply(self, status, body, ctype, headers=()):
        self.send_response(status)
        for k, v in [("Content-Type", ctype), ("Content-Length", str(len(body))), *headers]:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
    def note(self, body=b""):
        print(json.dumps({"method": self.command, "path": self.path,
                          "client": self.client_address[0],
                          "type": self.headers.get("Content-Type"),
                          "body": body.decode("utf-8", "replace")}), flush=True)
    def do_GET(self):
        self.note()
        if self.path == "/":
            return self.reply(200, PAGE.encode(), "text/html; charset=utf-8")
        n = self.path.removeprefix("/files/")
        if n.isdigit() and int(n) < len(files):
            f = files[int(n)]
            with open(f["path"], "rb") as fh:
                data = fh.read()
            ascii_name = f["name"].encode("ascii", "replace").decode()
            disposition = ("attachment; filename=\"%s\"; filename*=UTF-8''%s"
                           % (ascii_name, urllib.parse.quote(f["name"])))
            return self.reply(200, data, "application/octet-stream",
                              [("Content-Disposition", disposition)])
        self.reply(404, b"not found", "text/plain")
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.note(body)
        if self.path == "/api/list" and json.loads(body or b"null") == {"want": "files"}:
            listing = [{"name": f["name"], "size": f["size"], "url": "/files/%d" % i}
                       for i, f in enumerate(files)]
            return self.reply(200, json.dumps(listing).encode(), "application/json")
        if self.path == "/submit":
            note = urllib.parse.parse_qs(body.decode()).get("note", [""])[0]
            page = ("<!doctype html><meta charset=utf-8><title>Thanks</title>"
                    "<p id=got>Got: %s</p>" % note)
            return self.reply(200, page.encode(), "text/html; charset=utf-8")
        self.reply(400, b"bad request", "text/plain")
class Server(ThreadingHTTPServer):
    def server_bind(self):  # HTTPServer's own would look its name up in DNS (getfqdn)
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = address, port
server = Server((address, port), Handler)
if cert:
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert)
    server.socket = tls.wrap_socket(server.socket, server_side=True)
print(json.dumps({"listening": port}), flush=True)
server.serve_forever()
'''

BED = pytest.mark.hosts(2, default_route=True)


def random_file(testbed, name: str, size: int) -> str:
    """A file of size random bytes in the bed's directory (outside the browser's)."""
    path = os.path.join(testbed.tmpdir, name)
    with open(path, "wb") as f:
        f.write(secrets.token_bytes(size))
    return path


def serve(host, files: list[tuple[str, str]], cert: str | None = None):
    """Start SERVER in host on PORT, offering files [(name shown, path)], over HTTPS with cert (a
    PEM file with certificate and key) if given; its LineProc once it listens."""
    listing = [{"name": name, "path": path, "size": os.path.getsize(path)} for name, path in files]
    argv = [sys.executable, "-c", SERVER, host.ipv4, str(PORT), json.dumps(listing)]
    proc = host.spawn(*argv, *([cert] if cert else []), label=f"{host.letter}:http")
    proc.wait_event(lambda e: e.get("listening") == PORT, timeout=10)
    return proc


def self_signed(testbed, host) -> str:
    """A PEM file (certificate and key) of a self-signed certificate for host's IPv4 address."""
    pem = os.path.join(testbed.tmpdir, f"server-{host.letter}.pem")
    key, crt = pem + ".key", pem + ".crt"
    run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "1", "-subj", f"/CN={host.ipv4}",
         "-addext", f"subjectAltName=IP:{host.ipv4}", "-keyout", key, "-out", crt], timeout=20)
    with open(pem, "w") as out:
        for part in (crt, key):
            with open(part) as f:
                out.write(f.read())
    return pem


@BED
def test_page_script_posts_and_files_download_byte_identical(testbed, chromium):
    """The page's script POSTs a JSON body and renders the list it gets as links with absolute
    addresses; clicking each link downloads the file under the name Content-Disposition gives
    (filename* in UTF-8), with the SHA-256 of the original; and nothing left host b but for the
    bed."""
    a, b = testbed.hosts
    small = random_file(testbed, "small.bin", 100 * 1024)
    large = random_file(testbed, "large.bin", 3 * 1024 * 1024)
    names = ["small.bin", "grösser Anhang.bin"]
    server = serve(a, [(names[0], small), (names[1], large)])
    browser = chromium(b)
    base = f"http://{a.ipv4}:{PORT}"

    assert browser.navigate(base + "/") == 200
    assert browser.title() == "Shared files"
    browser.wait_for("document.querySelectorAll('#files a').length === 2", timeout=10)
    assert browser.links("#files a") == [(names[0], f"{base}/files/0"),
                                         (names[1], f"{base}/files/1")]
    assert "grösser Anhang.bin (3145728 bytes)" in browser.text()
    assert any(m.kind == "console" and m.text == "rendered 2 files" for m in browser.console), \
        browser.output()
    posted = [e for e in server.events() if e.get("method") == "POST"]
    assert [(e["path"], e["client"], e["type"], json.loads(e["body"])) for e in posted] == \
        [("/api/list", b.ipv4, "application/json", {"want": "files"})], posted

    browser.allow_downloads()
    got_small = browser.download("#files li:nth-child(1) a", expected_name=names[0], timeout=30)
    got_large = browser.download("#files li:nth-child(2) a", expected_name=names[1], timeout=60)
    assert os.path.dirname(got_small) == os.path.dirname(got_large) == browser.downloads_dir
    assert sorted(os.listdir(browser.downloads_dir)) == sorted(names)
    assert (os.path.getsize(got_small), sha256_file(got_small)) == \
        (100 * 1024, sha256_file(small))
    assert (os.path.getsize(got_large), sha256_file(got_large)) == \
        (3 * 1024 * 1024, sha256_file(large))
    assert [(d.suggested_name, d.state, d.received_bytes) for d in browser.downloads] == \
        [(names[0], "completed", 100 * 1024), (names[1], "completed", 3 * 1024 * 1024)]
    gets = [e["path"] for e in server.events() if e.get("method") == "GET"]
    assert [p for p in gets if p != "/favicon.ico"] == ["/", "/files/0", "/files/1"], gets
    # The page is still the list: a download does not navigate away.
    assert browser.url() == base + "/"
    assert browser.outbound() == []


@BED
def test_form_is_filled_and_submitted(testbed, chromium):
    """A field filled through the fixture is POSTed as a form by a real click on the button, and
    the answer page is loaded."""
    a, b = testbed.hosts
    server = serve(a, [])
    browser = chromium(b)
    base = f"http://{a.ipv4}:{PORT}"
    assert browser.navigate(base + "/") == 200
    browser.wait_for("document.querySelector('#note-text') !== null")
    browser.fill("#note-text", "hello from b & co")
    assert browser.evaluate("document.querySelector('#note-text').value") == "hello from b & co"
    start = browser.mark()
    browser.click("#send")
    browser.wait_event(lambda e: e.get("method") == "Page.lifecycleEvent"
                       and e["params"].get("name") == "load", timeout=10, start=start)
    assert browser.wait_for("document.querySelector('#got')?.textContent") == \
        "Got: hello from b & co"
    assert browser.url() == base + "/submit"
    submitted = [e for e in server.events() if e.get("path") == "/submit"]
    assert [(e["method"], e["client"], e["type"], e["body"]) for e in submitted] == \
        [("POST", b.ipv4, "application/x-www-form-urlencoded", "note=hello+from+b+%26+co")]
    # A click target given as JavaScript: the expression yields the element.
    assert browser.navigate(base + "/") == 200
    browser.fill("#note-text", "second")
    browser.click("document.forms[0].querySelector('button')")
    assert browser.wait_for("document.querySelector('#got')?.textContent") == "Got: second"
    assert browser.outbound() == []


@BED
def test_errors_are_reported(testbed, chromium):
    """A refused connection, a throwing expression, a missing element and a wait that never comes
    true raise BrowserError with the reason; an uncaught exception reaches the console."""
    a, b = testbed.hosts
    browser = chromium(b)
    with pytest.raises(BrowserError, match="ERR_CONNECTION_REFUSED"):
        browser.navigate(f"http://{a.ipv4}:{PORT}/", timeout=10)
    assert browser.navigate("data:text/html,<p id=x>data page</p>") == 200  # as Chromium says
    assert browser.text() == "data page"
    assert browser.navigate("about:blank") is None
    with pytest.raises(JavaScriptError, match="boom"):
        browser.evaluate("(() => { throw new Error('boom'); })()")
    assert browser.evaluate("Promise.resolve(6 * 7)") == 42
    assert browser.evaluate("undefined") is None
    with pytest.raises(BrowserError, match="no element matches #missing"):
        browser.click("#missing")
    with pytest.raises(BrowserError, match="timed out"):
        browser.wait_for("document.querySelector('#never')", timeout=0.5)
    browser.evaluate("setTimeout(() => { throw new Error('uncaught here'); }, 0)")
    wait_until(lambda: any(m.kind == "exception" and "uncaught here" in m.text
                           for m in browser.console), timeout=5, what="the exception")
    assert browser.outbound() == []


@BED
def test_self_signed_https_page_and_download(testbed, chromium):
    """Over HTTPS with a self-signed certificate the page is refused until the fixture ignores
    certificate errors; then its script's POST, a link and a download work as over HTTP."""
    if missing_tools(["openssl"]):
        pytest.skip("openssl not found (apt-get install openssl)")
    a, b = testbed.hosts
    data = random_file(testbed, "data.bin", 256 * 1024)
    server = serve(a, [("data.bin", data)], cert=self_signed(testbed, a))
    browser = chromium(b)
    base = f"https://{a.ipv4}:{PORT}"
    with pytest.raises(BrowserError, match="ERR_CERT_AUTHORITY_INVALID"):
        browser.navigate(base + "/", timeout=10)
    browser.ignore_certificate_errors()
    assert browser.navigate(base + "/") == 200
    browser.wait_for("document.querySelectorAll('#files a').length === 1")
    assert browser.links("#files a") == [("data.bin", f"{base}/files/0")]
    got = browser.download("#files a", expected_name="data.bin", timeout=30)
    assert sha256_file(got) == sha256_file(data)
    assert [(e["method"], e["path"]) for e in server.events() if "method" in e
            and e["path"] != "/favicon.ico"] == [("GET", "/"), ("POST", "/api/list"),
                                                 ("GET", "/files/0")]
    assert browser.outbound() == []
