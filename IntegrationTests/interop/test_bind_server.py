"""Self-tests of the BIND 9 fixture (bind_server.py): named on its own subnet behind the router
answers, and only an update signed with its TSIG key changes the zone (RFC 2136, RFC 8945).

Host a is on subnet 1, b on 2, c (the DNS server) on 3: every query and update from a crosses the
router, as a site's DNS server would be reached. No Huddle involved: these prove the fixture, so a
failing Huddle DNS-SD test points at Huddle.
"""

import re

import pytest

from conftest import TYPE

ZONE = "example.internal"
SOA = f"ns1.{ZONE}. hostmaster.{ZONE}. 1 30 30 3600 30"
ROUTED = pytest.mark.hosts(3, subnets={"b": 2, "c": 3}, router=True)
SERVICE = f"Desk.{TYPE}"
PLANT = (f"update add {TYPE} 30 PTR {SERVICE}.{ZONE}.",
         f"update add {SERVICE} 30 SRV 0 0 7777 huddle-a.{ZONE}.",
         f'update add {SERVICE} 30 TXT "txtvers=1" "id=abc"')


@ROUTED
def test_named_answers_soa_across_the_router(testbed, bind9):
    """named on c (subnet 3) answers a's (subnet 1) queries via the router: SOA with the 30 s
    negative TTL, the server's A record, the RFC 6763 §11 browse-domain pointers, NXDOMAIN."""
    a, c = testbed[0], testbed[2]
    assert (a.subnet, c.subnet) == (1, 3)
    dns = bind9(c, zone=ZONE)
    assert dns.address == c.ipv4 and dns.zone == ZONE
    assert dns.query("@", "SOA", client=a) == [SOA]
    assert dns.query("@", "NS", client=a) == [f"ns1.{ZONE}."]
    assert dns.query("ns1", "A", client=a) == [c.ipv4]
    for browse in ("b", "lb"):
        assert dns.query(f"{browse}._dns-sd._udp.{ZONE}.", "PTR", client=a) == [f"{ZONE}."]
    soa = dns.lookup("@", "SOA", client=a)
    assert soa.status == "NOERROR" and re.search(r"flags: qr aa;", soa.raw), soa.raw
    missing = dns.lookup("nobody", "A", client=a)
    assert missing.status == "NXDOMAIN" and missing.answers == [], missing.raw


@ROUTED
def test_signed_update_adds_a_service(testbed, bind9):
    """An update from a signed with the key file adds PTR, SRV and TXT; queries return them, the
    serial goes up, and named logs the signer as approved."""
    a, c = testbed[0], testbed[2]
    dns = bind9(c, zone=ZONE)
    key = open(dns.key_file).read()
    assert re.fullmatch(rf'key "{re.escape(dns.key_name)}" {{\n\talgorithm hmac-sha256;\n'
                        rf'\tsecret "{re.escape(dns.key_secret)}";\n}};\n', key), key
    res = dns.update(*PLANT, client=a)
    assert (res.rc, res.status, res.tsig_error) == (0, "NOERROR", None), res
    assert dns.query(TYPE, "PTR", client=a) == [f"{SERVICE}.{ZONE}."]
    assert dns.query(SERVICE, "SRV", client=a) == [f"0 0 7777 huddle-a.{ZONE}."]
    assert dns.query(SERVICE, "TXT", client=a) == ['"txtvers=1" "id=abc"']
    assert dns.serial(client=a) == 2
    mine = {(r["name"], r["type"], r["rdata"]) for r in dns.records(client=a)
            if TYPE in r["name"]}
    assert mine == {(f"{TYPE}.{ZONE}.", "PTR", f"{SERVICE}.{ZONE}."),
                    (f"{SERVICE}.{ZONE}.", "SRV", f"0 0 7777 huddle-a.{ZONE}."),
                    (f"{SERVICE}.{ZONE}.", "TXT", '"txtvers=1" "id=abc"')}
    dns.proc.wait_line(lambda l: f'signer "{dns.key_name}" approved' in l, 5)


@ROUTED
def test_update_with_the_wrong_key_is_refused(testbed, bind9):
    """The same key name with another secret: NOTAUTH with TSIG error BADSIG, zone unchanged."""
    a, c = testbed[0], testbed[2]
    dns = bind9(c, zone=ZONE)
    wrong = open(dns.wrong_key_file).read()
    assert f'key "{dns.key_name}"' in wrong and "hmac-sha256" in wrong
    assert dns.key_secret not in wrong
    before = dns.records(client=a)
    res = dns.update(*PLANT, key_file=dns.wrong_key_file, client=a, check=False)
    assert (res.status, res.tsig_error) == ("NOTAUTH", "BADSIG"), res
    assert res.rc != 0
    dns.proc.wait_line(lambda l: f"TSIG {dns.key_name}: tsig verify failure (BADSIG)" in l, 5)
    assert dns.records(client=a) == before
    assert dns.serial(client=a) == 1
    assert dns.query(TYPE, "PTR", client=a) == []


@ROUTED
def test_unsigned_update_is_refused(testbed, bind9):
    """An update without TSIG: REFUSED (allow-update names only the key), zone unchanged."""
    a, c = testbed[0], testbed[2]
    dns = bind9(c, zone=ZONE)
    before = dns.records(client=a)
    res = dns.update(*PLANT, key_file=None, client=a, check=False)
    assert (res.status, res.tsig_error) == ("REFUSED", None), res
    assert res.rc != 0
    dns.proc.wait_line(lambda l: f"update '{ZONE}/IN' denied" in l, 5)
    assert dns.records(client=a) == before
    assert dns.serial(client=a) == 1
    assert dns.query(SERVICE, "SRV", client=a) == []


@pytest.mark.hosts(3, subnets={"b": 2, "c": 3}, router=True, ula=True)
def test_named_answers_on_its_ula_across_the_router(testbed, bind9):
    """With ULAs, named also listens on c's fd00:: address: a reaches it over IPv6 via the router,
    and ns1 has the AAAA."""
    a, c = testbed[0], testbed[2]
    dns = bind9(c, zone=ZONE)
    assert dns.address6 == c.ula
    assert dns.query("@", "SOA", client=a, server=c.ula) == [SOA]
    assert dns.query("ns1", "AAAA", client=a, server=c.ula) == [c.ula]
