"""Issue 38: pairing from the daemon's web page, on two test hosts with the README's commands. Ada's page issues a
pairing link by its "Show a pairing link" form and shows it with its QR code; `huddle pair -` on Bob's host,
given that link, pairs through Bob's daemon; Ada's page then says who paired, and a send to DaBob lands with no
question."""

from __future__ import annotations

import html
import os
import re

import pytest

from test_huddle_daemon import User
from test_huddle_daemon_page import fetch, page_url
from test_huddle_transfer import make_file, sha256
from testbed import wait_until


@pytest.mark.hosts(2, ifname="eth0")
def test_a_link_shown_on_the_page_pairs_the_device_that_uses_it(testbed, homes):
    a, b = testbed[0], testbed[1]
    ada, bob = User(a, homes, "DaAda"), User(b, homes, "DaBob")
    inbox = homes("bob-inbox")
    daemons = [ada.daemon(), bob.daemon("--dir", inbox)]
    url = page_url(ada)
    base = url.split("/?")[0]
    page = fetch(a, url)["body"]
    assert 'id="pairing"' in page and "Show a pairing link" in page and "huddle:pair" not in page, page

    issued = fetch(a, base + "/pair?token=" + url.split("token=")[1], "POST", Origin=base)
    assert issued["status"] == 303 and issued["headers"]["Location"].endswith("#pairing"), issued
    page = fetch(a, url)["body"]
    found = re.search(r'<p class="link id">(huddle:pair\?[^<]+)</p>', page)
    assert found and 'alt="The pairing link as a QR code" src="data:image/png;base64,' in page, page
    link = html.unescape(found.group(1))
    # Without the token, nothing is issued.
    refused = fetch(a, base + "/pair", "POST", Origin=base)
    assert refused["status"] == 403, refused

    user = bob.run("pair", "-", stdin=True)
    user.send(link)
    assert user.wait_exit(60) == 0, user.output() + daemons[1].output()
    wait_until(lambda: "paired with DaBob" in fetch(a, url)["body"], 20, what="the page to say who paired")
    assert "huddle:pair" not in fetch(a, url)["body"]

    source = os.path.join(homes("files"), "after-pairing.bin")
    digest = make_file(source, 120_000)
    send = ada.run("send", source, "--to", "DaBob")
    assert send.wait_exit(60) == 0, send.output() + daemons[0].output()
    assert sha256(os.path.join(inbox, "after-pairing.bin")) == digest
    for proc in daemons:
        assert proc.stop() == 0, proc.output()
