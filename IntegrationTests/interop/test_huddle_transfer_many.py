"""Issue 4: many small files in one `huddle send` between test hosts all arrive.

The receiver answers each offer at once, so its ACCEPT (and later its RESULT) can come back before the sender's
own write of the OFFER (or END) has completed; an answer that arrived before the sender was waiting for it used to
be dropped, and the send then hung after a few files.
"""

from __future__ import annotations

import os

import pytest

from test_huddle_transfer import spawn

COUNT = 200


@pytest.mark.hosts(2)
def test_two_hundred_small_files_in_one_send_all_arrive(testbed, huddle, homes):
    """200 files of 2 KiB, one `huddle send`: all verified, all on disk with their contents, both ends exit 0."""
    a, b = testbed[0], testbed[1]
    source, inbox = homes("files"), homes("inbox")
    paths = []
    for index in range(COUNT):
        path = os.path.join(source, f"f{index:03}.bin")
        with open(path, "wb") as f:
            f.write(os.urandom(2048))
        paths.append(path)
    receiver = spawn(b, homes("b"), "receive", "--dir", inbox, "--yes", "--count", str(COUNT), "--name", "Bob",
                     "--json")
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    sender = spawn(a, homes("a"), "send", *paths, "--to", "Bob", "--yes", "--name", "Ada", "--json")
    sender.wait_event(lambda e: e.get("event") == "sent" and e.get("file") == f"f{COUNT - 1:03}.bin", 60)
    assert sender.wait_exit(20) == 0, sender.output()
    assert receiver.wait_exit(20) == 0, receiver.output()
    assert sorted(os.listdir(inbox)) == sorted(os.path.basename(p) for p in paths)
    for path in paths:
        with open(path, "rb") as f, open(os.path.join(inbox, os.path.basename(path)), "rb") as g:
            assert f.read() == g.read(), path
