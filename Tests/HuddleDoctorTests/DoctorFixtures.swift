/// Rule sets as `nft -j list ruleset`, `nft -a list ruleset` and `iptables-save` print them (nftables 1.0.6,
/// iptables 1.8.9), each made in a fresh network namespace: the inputs of the packet filter tests.
enum DoctorFixtures {
    /// The rule of the interop test: `nft add rule inet hdtest input udp dport 5353 drop` in a chain that accepts.
    static let hdtestJSON = #"""
        {"nftables": [
          {"metainfo": {"version": "1.0.6", "release_name": "Lester Gooch #5", "json_schema_version": 1}},
          {"table": {"family": "inet", "name": "hdtest", "handle": 1}},
          {"chain": {"family": "inet", "table": "hdtest", "name": "input", "handle": 1, "type": "filter", "hook": "input", "prio": 0, "policy": "accept"}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 2, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "udp", "field": "dport"}}, "right": 5353}}, {"drop": null}]}}
        ]}
        """#

    static let hdtestListing = #"""
        table inet hdtest { # handle 1
            chain input { # handle 1
                type filter hook input priority filter; policy accept;
                udp dport 5353 drop # handle 2
            }
        }
        """#

    /// A chain with policy drop that tries most of what doctor reads: sets, ranges, named sets, negation, prefixes,
    /// jumps that return, a goto, a verdict map.
    static let mixedJSON = #"""
        {"nftables": [
          {"metainfo": {"version": "1.0.6", "release_name": "Lester Gooch #5", "json_schema_version": 1}},
          {"table": {"family": "inet", "name": "hdtest", "handle": 1}},
          {"set": {"family": "inet", "name": "allowed", "table": "hdtest", "type": "inet_service", "handle": 3, "elem": [22, 5353]}},
          {"chain": {"family": "inet", "table": "hdtest", "name": "input", "handle": 1, "type": "filter", "hook": "input", "prio": 0, "policy": "drop"}},
          {"chain": {"family": "inet", "table": "hdtest", "name": "sub", "handle": 2}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 4, "expr": [{"match": {"op": "in", "left": {"ct": {"key": "state"}}, "right": ["established", "related"]}}, {"accept": null}]}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 5, "expr": [{"match": {"op": "==", "left": {"meta": {"key": "iifname"}}, "right": "lo"}}, {"accept": null}]}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 6, "expr": [{"match": {"op": "in", "left": {"ct": {"key": "state"}}, "right": "invalid"}}, {"drop": null}]}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 8, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "udp", "field": "dport"}}, "right": {"set": [{"range": [5000, 6000]}, 7000]}}}, {"counter": {"packets": 0, "bytes": 0}}, {"drop": null}]}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 9, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "ip", "field": "daddr"}}, "right": "224.0.0.251"}}, {"match": {"op": "==", "left": {"payload": {"protocol": "udp", "field": "dport"}}, "right": 5353}}, {"accept": null}]}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 10, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "ip6", "field": "daddr"}}, "right": "ff02::fb"}}, {"match": {"op": "==", "left": {"payload": {"protocol": "udp", "field": "dport"}}, "right": 5353}}, {"accept": null}]}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 11, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "tcp", "field": "dport"}}, "right": "@allowed"}}, {"accept": null}]}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 12, "expr": [{"match": {"op": "==", "left": {"meta": {"key": "iifname"}}, "right": "eth*"}}, {"match": {"op": "!=", "left": {"payload": {"protocol": "udp", "field": "dport"}}, "right": 53}}, {"reject": {"type": "icmpx", "expr": "admin-prohibited"}}]}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 13, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "ip", "field": "saddr"}}, "right": {"prefix": {"addr": "10.0.0.0", "len": 8}}}}, {"jump": {"target": "sub"}}]}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 14, "expr": [{"match": {"op": "in", "left": {"ct": {"key": "status"}}, "right": "dnat"}}, {"accept": null}]}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 15, "expr": [{"match": {"op": "==", "left": {"meta": {"key": "pkttype"}}, "right": "multicast"}}, {"accept": null}]}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 16, "expr": [{"match": {"op": "<", "left": {"payload": {"protocol": "tcp", "field": "dport"}}, "right": 1024}}, {"drop": null}]}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 17, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "udp", "field": "dport"}}, "right": 5353}}, {"goto": {"target": "sub"}}]}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 19, "expr": [{"vmap": {"key": {"meta": {"key": "iifname"}}, "data": {"set": [["lo", {"accept": null}], ["eth0", {"jump": {"target": "sub"}}]]}}}]}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 20, "expr": [{"reject": {"type": "icmpx", "expr": "port-unreachable"}}]}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "sub", "handle": 21, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "udp", "field": "sport"}}, "right": 5353}}, {"return": null}]}},
          {"rule": {"family": "inet", "table": "hdtest", "chain": "sub", "handle": 22, "expr": [{"drop": null}]}}
        ]}
        """#

    static let mixedListing = #"""
        table inet hdtest { # handle 1
            set allowed { # handle 3
                type inet_service
                elements = { 22, 5353 }
            }

            chain input { # handle 1
                type filter hook input priority filter; policy drop;
                ct state established,related accept # handle 4
                iifname "lo" accept # handle 5
                ct state invalid drop # handle 6
                udp dport { 5000-6000, 7000 } counter packets 0 bytes 0 drop # handle 8
                ip daddr 224.0.0.251 udp dport 5353 accept # handle 9
                ip6 daddr ff02::fb udp dport 5353 accept # handle 10
                tcp dport @allowed accept # handle 11
                iifname "eth*" udp dport != 53 reject with icmpx admin-prohibited # handle 12
                ip saddr 10.0.0.0/8 jump sub # handle 13
                ct status dnat accept # handle 14
                meta pkttype multicast accept # handle 15
                tcp dport < 1024 drop # handle 16
                udp dport 5353 goto sub # handle 17
                iifname vmap { "lo" : accept, "eth0" : jump sub } # handle 19
                reject # handle 20
            }

            chain sub { # handle 2
                udp sport 5353 return # handle 21
                drop # handle 22
            }
        }
        """#

    /// firewalld's shape (`table inet firewalld`), its public zone without the mdns service.
    static let firewalldJSON = #"""
        {"nftables": [
          {"metainfo": {"version": "1.0.6", "release_name": "Lester Gooch #5", "json_schema_version": 1}},
          {"table": {"family": "inet", "name": "firewalld", "handle": 1}},
          {"chain": {"family": "inet", "table": "firewalld", "name": "filter_INPUT", "handle": 1, "type": "filter", "hook": "input", "prio": 10, "policy": "accept"}},
          {"chain": {"family": "inet", "table": "firewalld", "name": "filter_INPUT_ZONES", "handle": 2}},
          {"chain": {"family": "inet", "table": "firewalld", "name": "filter_IN_public", "handle": 3}},
          {"chain": {"family": "inet", "table": "firewalld", "name": "filter_IN_public_pre", "handle": 4}},
          {"chain": {"family": "inet", "table": "firewalld", "name": "filter_IN_public_allow", "handle": 5}},
          {"rule": {"family": "inet", "table": "firewalld", "chain": "filter_INPUT", "handle": 7, "expr": [{"match": {"op": "==", "left": {"ct": {"key": "state"}}, "right": {"set": ["established", "related"]}}}, {"accept": null}]}},
          {"rule": {"family": "inet", "table": "firewalld", "chain": "filter_INPUT", "handle": 8, "expr": [{"match": {"op": "in", "left": {"ct": {"key": "status"}}, "right": "dnat"}}, {"accept": null}]}},
          {"rule": {"family": "inet", "table": "firewalld", "chain": "filter_INPUT", "handle": 9, "expr": [{"match": {"op": "==", "left": {"meta": {"key": "iifname"}}, "right": "lo"}}, {"accept": null}]}},
          {"rule": {"family": "inet", "table": "firewalld", "chain": "filter_INPUT", "handle": 10, "expr": [{"match": {"op": "in", "left": {"ct": {"key": "state"}}, "right": "invalid"}}, {"drop": null}]}},
          {"rule": {"family": "inet", "table": "firewalld", "chain": "filter_INPUT", "handle": 11, "expr": [{"jump": {"target": "filter_INPUT_ZONES"}}]}},
          {"rule": {"family": "inet", "table": "firewalld", "chain": "filter_INPUT", "handle": 12, "expr": [{"reject": {"type": "icmpx", "expr": "admin-prohibited"}}]}},
          {"rule": {"family": "inet", "table": "firewalld", "chain": "filter_INPUT_ZONES", "handle": 13, "expr": [{"match": {"op": "==", "left": {"meta": {"key": "iifname"}}, "right": "eth0"}}, {"goto": {"target": "filter_IN_public"}}]}},
          {"rule": {"family": "inet", "table": "firewalld", "chain": "filter_INPUT_ZONES", "handle": 14, "expr": [{"goto": {"target": "filter_IN_public"}}]}},
          {"rule": {"family": "inet", "table": "firewalld", "chain": "filter_IN_public", "handle": 15, "expr": [{"jump": {"target": "filter_IN_public_pre"}}]}},
          {"rule": {"family": "inet", "table": "firewalld", "chain": "filter_IN_public", "handle": 16, "expr": [{"jump": {"target": "filter_IN_public_allow"}}]}},
          {"rule": {"family": "inet", "table": "firewalld", "chain": "filter_IN_public", "handle": 18, "expr": [{"match": {"op": "==", "left": {"meta": {"key": "l4proto"}}, "right": {"set": ["icmp", "ipv6-icmp"]}}}, {"accept": null}]}},
          {"rule": {"family": "inet", "table": "firewalld", "chain": "filter_IN_public", "handle": 19, "expr": [{"reject": {"type": "icmpx", "expr": "admin-prohibited"}}]}},
          {"rule": {"family": "inet", "table": "firewalld", "chain": "filter_IN_public_allow", "handle": 20, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "tcp", "field": "dport"}}, "right": 22}}, {"accept": null}]}},
          {"rule": {"family": "inet", "table": "firewalld", "chain": "filter_IN_public_allow", "handle": 21, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "ip6", "field": "daddr"}}, "right": {"prefix": {"addr": "fe80::", "len": 64}}}}, {"match": {"op": "==", "left": {"payload": {"protocol": "udp", "field": "dport"}}, "right": 546}}, {"accept": null}]}}
        ]}
        """#

    static let firewalldListing = #"""
        table inet firewalld { # handle 1
            chain filter_INPUT { # handle 1
                type filter hook input priority filter + 10; policy accept;
                ct state { established, related } accept # handle 7
                ct status dnat accept # handle 8
                iifname "lo" accept # handle 9
                ct state invalid drop # handle 10
                jump filter_INPUT_ZONES # handle 11
                reject with icmpx admin-prohibited # handle 12
            }

            chain filter_INPUT_ZONES { # handle 2
                iifname "eth0" goto filter_IN_public # handle 13
                goto filter_IN_public # handle 14
            }

            chain filter_IN_public { # handle 3
                jump filter_IN_public_pre # handle 15
                jump filter_IN_public_allow # handle 16
                meta l4proto { icmp, ipv6-icmp } accept # handle 18
                reject with icmpx admin-prohibited # handle 19
            }

            chain filter_IN_public_pre { # handle 4
            }

            chain filter_IN_public_allow { # handle 5
                tcp dport 22 accept # handle 20
                ip6 daddr fe80::/64 udp dport 546 accept # handle 21
            }
        }
        """#

    /// Policy drop: `ip6 strict` accepts nothing new for mDNS; `inet home` accepts a subnet doctor cannot judge.
    static let policyDropJSON = #"""
        {"nftables": [
          {"metainfo": {"version": "1.0.6", "release_name": "Lester Gooch #5", "json_schema_version": 1}},
          {"table": {"family": "ip6", "name": "strict", "handle": 1}},
          {"chain": {"family": "ip6", "table": "strict", "name": "input", "handle": 1, "type": "filter", "hook": "input", "prio": 0, "policy": "drop"}},
          {"rule": {"family": "ip6", "table": "strict", "chain": "input", "handle": 2, "expr": [{"match": {"op": "in", "left": {"ct": {"key": "state"}}, "right": ["established", "related"]}}, {"accept": null}]}},
          {"rule": {"family": "ip6", "table": "strict", "chain": "input", "handle": 3, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "ip6", "field": "saddr"}}, "right": {"prefix": {"addr": "fe80::", "len": 10}}}}, {"match": {"op": "==", "left": {"payload": {"protocol": "tcp", "field": "dport"}}, "right": 22}}, {"accept": null}]}},
          {"table": {"family": "inet", "name": "home", "handle": 2}},
          {"chain": {"family": "inet", "table": "home", "name": "input", "handle": 1, "type": "filter", "hook": "input", "prio": 0, "policy": "drop"}},
          {"rule": {"family": "inet", "table": "home", "chain": "input", "handle": 2, "expr": [{"match": {"op": "in", "left": {"ct": {"key": "state"}}, "right": ["established", "related"]}}, {"accept": null}]}},
          {"rule": {"family": "inet", "table": "home", "chain": "input", "handle": 3, "expr": [{"match": {"op": "==", "left": {"meta": {"key": "iifname"}}, "right": "lo"}}, {"accept": null}]}},
          {"rule": {"family": "inet", "table": "home", "chain": "input", "handle": 4, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "ip", "field": "saddr"}}, "right": {"prefix": {"addr": "192.168.1.0", "len": 24}}}}, {"accept": null}]}},
          {"rule": {"family": "inet", "table": "home", "chain": "input", "handle": 5, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "tcp", "field": "dport"}}, "right": 5454}}, {"accept": null}]}}
        ]}
        """#

    static let policyDropListing = #"""
        table ip6 strict { # handle 1
            chain input { # handle 1
                type filter hook input priority filter; policy drop;
                ct state established,related accept # handle 2
                ip6 saddr fe80::/10 tcp dport 22 accept # handle 3
            }
        }
        table inet home { # handle 2
            chain input { # handle 1
                type filter hook input priority filter; policy drop;
                ct state established,related accept # handle 2
                iifname "lo" accept # handle 3
                ip saddr 192.168.1.0/24 accept # handle 4
                tcp dport 5454 accept # handle 5
            }
        }
        """#

    /// What `nft` shows of the rules in `iptables` below (iptables-nft): `xt` matches, opaque in JSON.
    static let iptablesNftJSON = #"""
        {"nftables": [
          {"metainfo": {"version": "1.0.6", "release_name": "Lester Gooch #5", "json_schema_version": 1}},
          {"table": {"family": "ip", "name": "filter", "handle": 1}},
          {"chain": {"family": "ip", "table": "filter", "name": "INPUT", "handle": 1, "type": "filter", "hook": "input", "prio": 0, "policy": "accept"}},
          {"rule": {"family": "ip", "table": "filter", "chain": "INPUT", "handle": 2, "expr": [{"match": {"op": "==", "left": {"meta": {"key": "iifname"}}, "right": "lo"}}, {"counter": {"packets": 0, "bytes": 0}}, {"accept": null}]}},
          {"rule": {"family": "ip", "table": "filter", "chain": "INPUT", "handle": 3, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "udp", "field": "dport"}}, "right": 5353}}, {"xt": {"type": "match", "name": "comment"}}, {"counter": {"packets": 0, "bytes": 0}}, {"drop": null}]}},
          {"rule": {"family": "ip", "table": "filter", "chain": "INPUT", "handle": 4, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "ip", "field": "saddr"}}, "right": {"prefix": {"addr": "10.0.0.0", "len": 8}}}}, {"match": {"op": "==", "left": {"payload": {"protocol": "tcp", "field": "dport"}}, "right": 5454}}, {"counter": {"packets": 0, "bytes": 0}}, {"xt": {"type": "target", "name": "REJECT"}}]}},
          {"table": {"family": "ip", "name": "raw", "handle": 2}},
          {"chain": {"family": "ip", "table": "raw", "name": "PREROUTING", "handle": 1, "type": "filter", "hook": "prerouting", "prio": -300, "policy": "accept"}},
          {"rule": {"family": "ip", "table": "raw", "chain": "PREROUTING", "handle": 2, "expr": [{"match": {"op": "!=", "left": {"meta": {"key": "iifname"}}, "right": "eth1"}}, {"match": {"op": "==", "left": {"meta": {"key": "l4proto"}}, "right": "udp"}}, {"xt": {"type": "match", "name": "multiport"}}, {"counter": {"packets": 0, "bytes": 0}}, {"drop": null}]}}
        ]}
        """#

    static let iptablesNftListing = #"""
        table ip filter { # handle 1
            chain INPUT { # handle 1
                type filter hook input priority filter; policy accept;
                iifname "lo" counter packets 0 bytes 0 accept # handle 2
                udp dport 5353  counter packets 0 bytes 0 drop # handle 3
                ip saddr 10.0.0.0/8 tcp dport 5454 counter packets 0 bytes 0 reject with tcp reset # handle 4
            }
        }
        table ip raw { # handle 2
            chain PREROUTING { # handle 1
                type filter hook prerouting priority raw; policy accept;
                iifname != "eth1" meta l4proto udp udp dport 5000-6000 counter packets 0 bytes 0 drop # handle 2
            }
        }
        """#
}
