import HuddleMDNSCore
import Testing

@testable import HuddleDoctor

/// The packet filter findings from `nft -j list ruleset` output: which rule drops mDNS or the session's port, named
/// by table, chain and handle, and the command that lets it through.
@Suite("huddle doctor: nftables rules")
struct DoctorNftablesTests {
    static let eth0 = [
        FirewallFindings.Link(interfaceName: "eth0", family: .v4), .init(interfaceName: "eth0", family: .v6),
    ]

    static func ruleset(_ json: String, _ listing: String = "") throws -> FilterRuleset {
        try #require(NftablesRuleset.parse(json: json, listing: listing))
    }

    static func findings(_ ruleset: FilterRuleset, port: UInt16? = nil) -> [DoctorFinding] {
        FirewallFindings(rulesets: [ruleset], links: Self.eth0, sessionPort: port).findings()
    }

    @Test("an entry doctor cannot read is left out, not the rule set; text that is not a rule set is nil")
    func unreadableEntries() throws {
        let json = #"""
            {"nftables": [
              "not an object",
              {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "expr": []}},
              {"chain": {"family": "inet", "table": "hdtest", "name": 7}},
              {"chain": {"family": "inet", "table": "hdtest", "name": "input", "hook": "input", "policy": "accept"}},
              {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 4, "expr": [
                {"counter": {"packets": 0, "bytes": 0}}, 17, {"match": {"op": "==", "left": {"payload": {"protocol": "udp",
                "field": "dport"}}, "right": {"range": [5350, 5360]}}}, {"drop": null}]}}
            ]}
            """#
        let ruleset = try Self.ruleset(json)
        #expect(ruleset.chains.map(\.name) == ["input"])
        #expect(ruleset.chains.first?.hook == "input")
        let rules = try #require(ruleset.chains.first?.rules)
        #expect(rules.map(\.handle) == [4], "the rule without a handle is left out")
        #expect(rules.first?.verdict == .drop)
        #expect(
            rules.first?.conditions.contains(.destinationPort(PortSet(ranges: [5350...5360]), transport: .udp)) == true
        )
        #expect(NftablesRuleset.parse(json: "nft: not permitted") == nil)
        #expect(NftablesRuleset.parse(json: #"{"tables": []}"#) == nil)
    }

    @Test("a drop of udp dport 5353 is named by table, chain, handle and text, with an accept inserted before it")
    func dropOfTheMDNSPort() throws {
        let found = Self.findings(try Self.ruleset(DoctorFixtures.hdtestJSON, DoctorFixtures.hdtestListing))
        #expect(found.count == 1)
        let finding = try #require(found.first)
        #expect(finding.code == "firewall-drops-mdns")
        #expect(finding.severity == .error)
        #expect(finding.interfaces == ["eth0"])
        #expect(
            finding.rule
                == RuleDescription(
                    tool: "nftables",
                    family: "inet",
                    table: "hdtest",
                    chain: "input",
                    handle: 2,
                    text: "udp dport 5353 drop"
                )
        )
        #expect(finding.message.contains("on eth0 (IPv4, IPv6): table inet hdtest, chain input, handle 2: udp dport"))
        #expect(finding.fix == "nft insert rule inet hdtest input handle 2 udp dport 5353 accept")
    }

    @Test(
        "a range in an anonymous set catches 5353 and the session's UDP port; a later catch-all reject drops its TCP port"
    )
    func setsRangesAndCatchAll() throws {
        let ruleset = try Self.ruleset(DoctorFixtures.mixedJSON, DoctorFixtures.mixedListing)
        let found = Self.findings(ruleset, port: 5454)
        #expect(
            found.map(\.code) == [
                "firewall-drops-mdns", "firewall-drops-session-port", "firewall-drops-session-datagram-port",
            ]
        )
        #expect(found.map(\.rule?.handle) == [8, 20, 8])
        #expect(found.first?.rule?.text == "udp dport { 5000-6000, 7000 } counter drop")
        #expect(found[1].fix == "nft insert rule inet hdtest input handle 20 tcp dport 5454 accept")
        #expect(found[2].fix == "nft insert rule inet hdtest input handle 8 udp dport 5454 accept")
        #expect(found[2].message.contains("the session's unreliable messages (UDP 5454)"))
        // Connections work without the datagram port: only that one is a warning.
        #expect(found.map(\.severity) == [.error, .error, .warning])
    }

    @Test("without --port the catch-all reject is a warning whose fix picks a port")
    func randomSessionPort() throws {
        let found = Self.findings(try Self.ruleset(DoctorFixtures.mixedJSON, DoctorFixtures.mixedListing))
        let session = try #require(found.first { $0.code == "firewall-may-block-session-port" })
        #expect(session.severity == .warning)
        #expect(session.fix?.contains("huddle chat --port 5454") == true)
        #expect(session.fix?.hasSuffix("nft insert rule inet hdtest input handle 20 tcp dport 5454 accept") == true)
    }

    @Test("each condition of the mixed chain reads as the kernel would judge it for an mDNS answer on wlan0")
    func conditionsOneByOne() throws {
        let ruleset = try Self.ruleset(DoctorFixtures.mixedJSON)
        let input = try #require(ruleset.chains.first { $0.name == "input" })
        let packet = FilterPacket.mdns(family: .v4, interfaceName: "wlan0")
        let truths = Dictionary(
            uniqueKeysWithValues: input.rules.map {
                ($0.handle, FilterTruth.all($0.conditions.map { $0.holds(for: packet) }))
            }
        )
        #expect(truths[4] == .no)  // ct state established,related
        #expect(truths[5] == .no)  // iifname "lo"
        #expect(truths[8] == .yes)  // udp dport { 5000-6000, 7000 }
        #expect(truths[9] == .yes)  // ip daddr 224.0.0.251 udp dport 5353
        #expect(truths[10] == .no)  // ip6 daddr … on an IPv4 packet
        #expect(truths[11] == .no)  // tcp dport @allowed
        #expect(truths[12] == .no)  // iifname "eth*"
        #expect(truths[13] == .unknown)  // ip saddr 10.0.0.0/8
        #expect(truths[14] == .no)  // ct status dnat
        #expect(truths[15] == .yes)  // meta pkttype multicast
        #expect(truths[19] == .unknown)  // a verdict map doctor does not follow
        #expect(truths[20] == .yes)  // reject
        #expect(input.rules.first { $0.handle == 17 }?.verdict == .goto("sub"))
    }

    @Test("firewalld's zone rejects mDNS; the fix is firewall-cmd, for the port too")
    func firewalld() throws {
        let found = Self.findings(
            try Self.ruleset(DoctorFixtures.firewalldJSON, DoctorFixtures.firewalldListing),
            port: 5454
        )
        #expect(
            found.map(\.code) == [
                "firewall-drops-mdns", "firewall-drops-session-port", "firewall-drops-session-datagram-port",
            ]
        )
        #expect(found.first?.rule?.chain == "filter_IN_public")
        #expect(found.first?.rule?.handle == 19)
        #expect(found.first?.rule?.text == "reject with icmpx admin-prohibited")
        #expect(found.first?.fix == "firewall-cmd --add-service=mdns --permanent && firewall-cmd --reload")
        #expect(found[1].fix == "firewall-cmd --add-port=5454/tcp --permanent && firewall-cmd --reload")
        #expect(found[2].fix == "firewall-cmd --add-port=5454/udp --permanent && firewall-cmd --reload")
    }

    @Test("a policy drop with no accept is an error; one with an accept doctor cannot judge is a warning naming it")
    func policyDrop() throws {
        let found = Self.findings(
            try Self.ruleset(DoctorFixtures.policyDropJSON, DoctorFixtures.policyDropListing),
            port: 5454
        )
        let mdns = found.filter { $0.code == "firewall-policy-drops-mdns" }
        #expect(mdns.count == 3)
        let strict = try #require(mdns.first { $0.rule?.table == "strict" })
        #expect(strict.severity == .error)
        #expect(strict.rule?.handle == nil)
        #expect(strict.rule?.text == "policy drop")
        #expect(strict.message.contains("on eth0 (IPv6)"))
        #expect(strict.fix == "nft insert rule ip6 strict input udp dport 5353 accept")
        let home = mdns.filter { $0.rule?.table == "home" }
        #expect(home.map(\.severity) == [.warning, .error])  // IPv4 may come from 192.168.1.0/24; IPv6 cannot
        #expect(home.first?.message.contains("handle 4 ip saddr 192.168.1.0/24 accept") == true)
        let session = found.filter { $0.code == "firewall-policy-drops-session-port" }
        #expect(session.map(\.rule?.table) == ["strict"])  // inet home accepts tcp dport 5454
    }

    @Test("tables iptables-nft manages are left to iptables-save, and their xt matches never read as certain")
    func iptablesNftTablesAreSkipped() throws {
        let managed = IptablesRuleset.tableNames(DoctorFixtures.iptablesSave, source: .iptables)
        #expect(managed == ["ip raw", "ip filter"])
        let skipped = try #require(NftablesRuleset.parse(json: DoctorFixtures.iptablesNftJSON, skippingTables: managed))
        #expect(skipped.chains.isEmpty)
        let all = try Self.ruleset(DoctorFixtures.iptablesNftJSON)
        let raw = try #require(all.chains.first { $0.table == "raw" }?.rules.first)
        #expect(raw.conditions.contains(.unknown("-m multiport")))
    }

    @Test("the listing gives each rule's text by table, chain and handle, counters shortened, sets skipped")
    func listing() {
        let texts = NftablesListing.ruleTexts(DoctorFixtures.mixedListing)
        #expect(texts["inet hdtest input 4"] == "ct state established,related accept")
        #expect(texts["inet hdtest input 8"] == "udp dport { 5000-6000, 7000 } counter drop")
        #expect(texts["inet hdtest sub 22"] == "drop")
        #expect(texts.count == 17)
    }
}

/// Every port the commands listen on is asked about, each drop named with its own fix (`huddle doctor` used to
/// check only mDNS and the session's TCP port).
@Suite("huddle doctor: the ports of LocalSend and KDE Connect")
struct DoctorListeningPortTests {
    /// A chain that accepts, with one rule that drops `transport dport port`.
    static func dropping(_ transport: String, _ port: UInt16) throws -> FilterRuleset {
        let json = #"""
            {"nftables": [
              {"table": {"family": "inet", "name": "hdtest", "handle": 1}},
              {"chain": {"family": "inet", "table": "hdtest", "name": "input", "handle": 1, "type": "filter", "hook": "input", "prio": 0, "policy": "accept"}},
              {"rule": {"family": "inet", "table": "hdtest", "chain": "input", "handle": 2, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "\#(transport)", "field": "dport"}}, "right": \#(port)}}, {"drop": null}]}}
            ]}
            """#
        let listing = """
            table inet hdtest { # handle 1
                chain input { # handle 1
                    type filter hook input priority filter; policy accept;
                    \(transport) dport \(port) drop # handle 2
                }
            }
            """
        return try #require(NftablesRuleset.parse(json: json, listing: listing))
    }

    @Test(arguments: ListingPortCase.all)
    func aDropOfThePortIsNamedWithItsFix(_ expected: ListingPortCase) throws {
        let ruleset = try Self.dropping(expected.transport, expected.port)
        let found = FirewallFindings(
            rulesets: [ruleset],
            links: DoctorNftablesTests.eth0,
            sessionPort: 47474,
            otherPorts: ListeningPort.foreign
        ).findings()
        #expect(found.count == 1, "\(found.map(\.code))")
        let finding = try #require(found.first)
        #expect(finding.code == expected.code)
        #expect(finding.severity == .warning)
        #expect(finding.message.contains(expected.words), "\(finding.message)")
        #expect(
            finding.fix
                == "nft insert rule inet hdtest input handle 2 \(expected.transport) dport \(expected.port) accept"
        )
    }

    /// The session's default port, 47474, is checked without `--port`: a drop of it is an error.
    @Test func theSessionsDefaultPortIsChecked() throws {
        let found = FirewallFindings(
            rulesets: [try Self.dropping("tcp", 47474)],
            links: DoctorNftablesTests.eth0,
            sessionPort: 47474,
            otherPorts: ListeningPort.foreign
        ).findings()
        #expect(found.map(\.code) == ["firewall-drops-session-port"])
        #expect(found.first?.severity == .error)
    }

    /// A rule that drops UDP to the session's port is named like the TCP one, as a warning with its fix.
    @Test func theSessionsDatagramPortIsChecked() throws {
        let found = FirewallFindings(
            rulesets: [try Self.dropping("udp", 47474)],
            links: DoctorNftablesTests.eth0,
            sessionPort: 47474,
            otherPorts: ListeningPort.foreign
        ).findings()
        #expect(found.map(\.code) == ["firewall-drops-session-datagram-port"])
        #expect(found.first?.severity == .warning)
        #expect(found.first?.rule?.handle == 2)
        #expect(found.first?.fix == "nft insert rule inet hdtest input handle 2 udp dport 47474 accept")
    }

    /// A chain that drops by policy and accepts only mDNS and the session: every foreign port is named.
    @Test func eachForeignPortIsNamedOnce() throws {
        var observed = DoctorObservations()
        observed.sessionPort = 47474
        #expect(observed.otherPorts.count == 6)
        let found = FirewallFindings(
            rulesets: [try Self.dropping("udp", 53317), try Self.dropping("tcp", 1716)],
            links: DoctorNftablesTests.eth0,
            sessionPort: 47474,
            otherPorts: observed.otherPorts
        ).findings()
        #expect(found.map(\.code) == ["firewall-drops-localsend-port", "firewall-drops-kdeconnect-port"])
    }
}

struct ListingPortCase: Sendable, CustomTestStringConvertible {
    var transport: String
    var port: UInt16
    var code: String
    var words: String
    var testDescription: String { "\(transport) \(port)" }

    static let all = [
        ListingPortCase(
            transport: "tcp",
            port: 53317,
            code: "firewall-drops-localsend-port",
            words: "LocalSend's HTTPS server (TCP 53317)"
        ),
        ListingPortCase(
            transport: "udp",
            port: 53317,
            code: "firewall-drops-localsend-port",
            words: "LocalSend announcements (UDP 53317)"
        ),
        ListingPortCase(
            transport: "tcp",
            port: 53318,
            code: "firewall-drops-localsend-port",
            words: "huddle share's page (TCP 53318)"
        ),
        ListingPortCase(
            transport: "udp",
            port: 1716,
            code: "firewall-drops-kdeconnect-port",
            words: "KDE Connect identities (UDP 1716)"
        ),
        ListingPortCase(
            transport: "tcp",
            port: 1716,
            code: "firewall-drops-kdeconnect-port",
            words: "KDE Connect links (TCP 1716)"
        ),
        ListingPortCase(
            transport: "tcp",
            port: 1739,
            code: "firewall-drops-kdeconnect-port",
            words: "KDE Connect file payloads (TCP 1739)"
        ),
    ]
}
