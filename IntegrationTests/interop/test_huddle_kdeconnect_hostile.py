"""A KDE Connect device that breaks the rules (peers/kde_hostile.py, protocol 7 over real TLS) against
`huddle receive --yes` (full tier): a 2 MiB line, a file name with a path, a payload longer or shorter than
announced, and a payload that stalls. Each is refused with a reason, nothing is kept and nothing is overwritten,
and Huddle goes on receiving."""

from __future__ import annotations

import os

import pytest

from huddle_cli import huddle_bin

pytestmark = pytest.mark.full
HOSTILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers", "kde_hostile.py")


def hostile(testbed, host, target, scenario: str, *claim: str):
    """The hostile device in host, dialling target's KDE Connect port, playing scenario (claiming another device's
    ID and name when claim gives them)."""
    work = os.path.join(testbed.tmpdir, f"hostile-{scenario}")
    os.makedirs(work)
    return testbed.track(host.spawn("python3", HOSTILE, target.ipv4, "1716", work, scenario, *claim,
                                    label=f"{host.letter}:hostile {scenario}"))


@pytest.mark.hosts(2, default_route=True)
def test_a_kdeconnect_device_that_breaks_the_rules_is_refused_and_nothing_is_kept(testbed, homes):
    a, b = testbed.hosts
    inbox = homes("inbox")
    with open(os.path.join(inbox, "longer.bin"), "w") as f:
        f.write("already here")
    argv = [huddle_bin(), "receive", "--dir", inbox, "--yes", "--json", "--name", "Ada", "--no-localsend",
            "--host", "huddle-a", "--interface", a.ifname]
    receiver = testbed.track(a.spawn(*argv, label="a:receive", env=dict(os.environ, HUDDLE_HOME=homes("a"))))
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)

    # A packet line over the 1 MiB limit: the link is closed.
    big = hostile(testbed, b, a, "oversized")
    big.wait_line(lambda l: l == "paired", 20)
    big.wait_line(lambda l: l == "closed by peer", 30)

    # A name with a path: refused before anything is fetched.
    mark = receiver.mark()
    bad = hostile(testbed, b, a, "badname")
    bad.wait_line(lambda l: l.startswith("offered"), 20)
    failed = receiver.wait_event(lambda e: e.get("event") == "failed", 20, start=mark)
    assert "../../escaped.txt" in failed["error"] and "refused" in failed["error"], failed
    assert not any(l == "payload connected" for _, l in list(bad.lines)), bad.output()

    # 5,000 bytes for an announced 1,000: refused, and the file of that name already there is untouched.
    mark = receiver.mark()
    longer = hostile(testbed, b, a, "longer")
    offer = receiver.wait_event(lambda e: e.get("event") == "offer", 20, start=mark)
    assert (offer["name"], offer["size"], offer["protocol"]) == ("longer.bin", 1000, "KDE Connect"), offer
    failed = receiver.wait_event(lambda e: e.get("event") == "failed", 20, start=mark)
    assert "more than the 1000 bytes it announced" in failed["error"], failed
    longer.wait_line(lambda l: l.startswith("payload"), 20)

    # 1,000 bytes of an announced 1,000,000, then the end: nothing kept.
    mark = receiver.mark()
    shorter = hostile(testbed, b, a, "shorter")
    shorter.wait_line(lambda l: l == "payload done", 20)
    failed = receiver.wait_event(lambda e: e.get("event") == "failed", 20, start=mark)
    assert "1000 bytes arrived of the 1000000 announced; nothing kept" in failed["error"], failed

    # 10 bytes and then silence: given up after 30 s without a byte.
    mark = receiver.mark()
    stall = hostile(testbed, b, a, "stall")
    stall.wait_line(lambda l: l == "payload sent 10", 20)
    failed = receiver.wait_event(lambda e: e.get("event") == "failed", 45, start=mark)
    assert "hostile-stall sent nothing for 30 s" in failed["error"], failed
    stall.wait_line(lambda l: l == "payload closed by receiver", 10)

    assert sorted(os.listdir(inbox)) == ["longer.bin"], os.listdir(inbox)
    with open(os.path.join(inbox, "longer.bin")) as f:
        assert f.read() == "already here"
    assert receiver.proc.poll() is None, receiver.output()
    assert not any(e.get("event") == "received" for e in receiver.events()), receiver.output()


@pytest.mark.hosts(3, default_route=True)
def test_an_impostor_with_a_paired_devices_id_is_refused_and_the_device_keeps_its_link(testbed, kdeconnect, homes):
    """docs/threat-model.md, "Foreign peers": kc-b pairs with `huddle receive --yes`; a device on a third host
    claims kc-b's ID and name with a certificate of its own, asks to pair and offers a file. It is closed at once,
    the user is warned, nothing of it is asked about or kept; kc-b's link stays, and its next file arrives."""
    from test_huddle_kdeconnect import pair
    a, b, c = testbed.hosts
    kc = kdeconnect(b, "kc-b")
    inbox = homes("inbox")
    argv = [huddle_bin(), "receive", "--dir", inbox, "--yes", "--json", "--count", "1", "--name", "Ada",
            "--no-localsend", "--host", "huddle-a", "--interface", a.ifname]
    receiver = testbed.track(a.spawn(*argv, label="a:receive", env=dict(os.environ, HUDDLE_HOME=homes("a")),
                                     merge_stderr=True))
    receiver.wait_line(lambda l: l.startswith("Receiving into"), 15)
    ada = pair(kc, receiver)

    mark = receiver.mark()
    impostor = hostile(testbed, c, a, "impostor", kc.id, "kc-b")
    impostor.wait_line(lambda l: l == "closed by peer", 20)
    warning = receiver.wait_line(lambda l: "WARNING: the KDE Connect device kc-b now shows" in l, 10,
                                 start=mark)
    assert "pinned for it" in warning, warning
    assert not any(l.startswith("packet kdeconnect.pair") for _, l in list(impostor.lines)), impostor.output()

    # kc-b is still linked and paired: its file arrives, and only it.
    data = os.urandom(100_000)
    outgoing = os.path.join(homes("files"), "after.bin")
    with open(outgoing, "wb") as f:
        f.write(data)
    kc.share_file(outgoing, ada)
    offer = receiver.wait_event(lambda e: e.get("event") == "offer", 20, start=mark)
    assert (offer["from"], offer["name"]) == ("kc-b", "after.bin"), offer
    got = receiver.wait_event(lambda e: e.get("event") == "received", 20, start=mark)
    with open(got["path"], "rb") as f:
        assert f.read() == data
    assert receiver.wait_exit(15) == 0, receiver.output()
    assert sorted(os.listdir(inbox)) == ["after.bin"], os.listdir(inbox)
