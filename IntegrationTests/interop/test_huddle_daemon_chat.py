"""Issue 38: `huddle chat` through the daemon on two test hosts, with nothing but the README's commands. Ada's and
Bob's daemons pair by link; `huddle chat` on each host follows its daemon's chat (no second session on the same
ports); a line Ada types reaches Bob's chat, `/peers` lists Bob as connected, and both histories keep the line —
Bob's as from DaAda, Ada's as said to DaBob — `huddle history --from` shows the conversation. Ada's web page shows
the chat and says a line from its form (reaching Bob's chat). `/quit` leaves.
"""

from __future__ import annotations

import json
import os

import pytest

from test_huddle_daemon import User, pair_by_link, said
from test_huddle_daemon_page import fetch, page_url, wait_connected


@pytest.mark.hosts(2, ifname="eth0")
def test_chat_goes_through_the_daemon_and_is_kept_in_the_history(testbed, huddle, homes):
    ada, bob = User(testbed[0], homes, "DaAda"), User(testbed[1], homes, "DaBob")
    ada_daemon = ada.daemon()
    bob_daemon = bob.daemon("--dir", homes("inbox"))
    pair_by_link(ada, bob, bob_daemon)

    bob_chat = bob.run("chat", stdin=True)
    bob_chat.wait_line(lambda l: l.startswith('Chatting in "TypingTogether" as DaBob') and "through the daemon" in l,
                       20)
    ada_chat = ada.run("chat", stdin=True)
    ada_chat.wait_line(lambda l: l.startswith('Chatting in "TypingTogether" as DaAda') and "through the daemon" in l,
                       20)

    wait_connected(ada_chat, "DaBob")

    ada_chat.send("hello from Ada \x1b[31m")
    bob_chat.wait_line(lambda l: l.startswith("DaAda: hello from Ada"), 20)
    assert not any("\x1b" in line for _, line in bob_chat.lines), bob_chat.output()
    bob_chat.send("hi Ada")
    ada_chat.wait_line(lambda l: l == "DaBob: hi Ada", 20)

    # The page is the chat too: it shows the conversation, and a line said there reaches Bob's chat.
    url = page_url(ada)
    page = fetch(ada.host, url)
    assert page["status"] == 200, page
    assert '<section id="chat"><h2>Chat</h2>' in page["body"], page["body"]
    assert "You to DaBob</span><p class=\"said\">hello from Ada [31m</p>" in page["body"], page["body"]
    assert '<span class="name">DaBob</span><p class="said">hi Ada</p>' in page["body"], page["body"]
    form = os.path.join(homes("forms"), "say.txt")
    with open(form, "w") as f:
        f.write("text=from+the+page+%26+%3Cb%3Eall%3C%2Fb%3E")
    origin = url.split("/?")[0]
    posted = fetch(ada.host, url.replace("/?", "/say?"), "POST", form, Origin=origin,
                   **{"Content-Type": "application/x-www-form-urlencoded"})
    assert posted["status"] == 303, posted
    bob_chat.wait_line(lambda l: l == "DaAda: from the page & <b>all</b>", 20)

    ada_chat.send("/quit")
    assert ada_chat.wait_exit(20) == 0, ada_chat.output()
    assert ada_chat.lines[-1][1] == "* left the chat", ada_chat.output()
    bob_chat.proc.stdin.close()
    assert bob_chat.wait_exit(20) == 0, bob_chat.output()

    history = bob.run("history", "--json", "--from", "DaAda")
    assert history.wait_exit(20) == 0, history.output()
    records = [json.loads(l) for _, l in history.lines]
    kept = [(r["kind"], r["protocol"], r.get("from"), r.get("to"), r["text"]) for r in records]
    # Kept as shown: the escape sequence's ESC is gone.
    assert kept == [("text", "huddle", "DaAda", None, "hello from Ada [31m"),
                    ("text", "huddle", None, "DaAda", "hi Ada"),
                    ("text", "huddle", "DaAda", None, "from the page & <b>all</b>")], kept
    words = ada.run("history", "--from", "DaBob")
    assert words.wait_exit(20) == 0, words.output()
    lines = [l for _, l in words.lines]
    assert len(lines) == 3 and lines[0].endswith('you to DaBob: "hello from Ada [31m"'), lines
    assert lines[1].endswith('DaBob: "hi Ada"'), lines
    assert lines[2].endswith('you to DaBob: "from the page & <b>all</b>"'), lines
    # The daemons never started a second session: each still answers, and no chat of its own was refused a port.
    assert ada_daemon.proc.poll() is None and bob_daemon.proc.poll() is None
    assert not said(ada_chat, "port"), ada_chat.output()
