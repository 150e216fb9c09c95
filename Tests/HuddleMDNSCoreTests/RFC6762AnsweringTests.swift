import HuddleDNS
import HuddleMDNSCore
import NIOCore
import Testing

private typealias F = ResponderFixture

/// A responder with Kitchen established, 10 s after its last announcement (so no rate limit is in force).
private func settled(
    seed: UInt64 = 7,
    interfaces: [MDNSInterface] = [F.eth0],
    services: [MDNSServiceRegistration] = [F.kitchen()]
) throws -> ResponderHarness {
    var h = try ResponderHarness(interfaces: interfaces, seed: seed)
    for service in services { h.register(service) }
    h.runUntilIdle()
    for service in services {
        #expect(h.announcements(of: F.ptr(to: service.instanceDNSName)).count >= 2)
    }
    h.advance(by: .seconds(10))
    return h
}

/// Answering queries (RFC 6762 §5.4, §5.5, §6, §6.1, §6.7, §7, §11; checklist D1–D14, A2, A6, A13, A14).
@Suite("RFC 6762 §6–§7 answering")
struct RFC6762AnsweringTests {
    // MARK: Delays

    /// D3: a unique answer to a single question goes out at once, by multicast, on the link it was asked on.
    @Test func uniqueAnswerIsImmediate() throws {
        var h = try settled()
        let asked = h.now
        h.receive(F.query(F.instance, .srv))
        h.advance(by: .seconds(1))
        let responses = h.sent(since: asked)
        try #require(responses.count == 1)
        #expect(responses[0].time == asked)
        #expect(responses[0].isMulticast)
        #expect(responses[0].link == F.linkV4)
        let srv = try #require(responses[0].message.answers.first)
        #expect(responses[0].message.answers.count == 1)
        #expect(srv == F.srv())
    }

    /// D3: a shared answer (PTR) waits a uniformly random 20–120 ms; checked over many seeds.
    @Test func sharedAnswerDelayIsRandomWithin20To120Milliseconds() throws {
        var delays: [TimeAmount] = []
        for seed in UInt64(1)...40 {
            var h = try settled(seed: seed)
            let asked = h.now
            h.receive(F.query(F.typeName, .ptr))
            h.advance(by: .seconds(1))
            let responses = h.responses(since: asked)
            try #require(responses.count == 1, "seed \(seed)")
            #expect(responses[0].answers(F.ptr()))
            delays.append(responses[0].time - asked)
        }
        #expect(delays.allSatisfy { $0 >= .milliseconds(20) && $0 <= .milliseconds(120) })
        #expect(Set(delays.map(\.nanoseconds)).count >= 35)
        #expect(delays.max()! - delays.min()! >= .milliseconds(60))
    }

    /// D3, A12, D4: a query with several questions is answered after 20–120 ms, in one packet with every answer.
    @Test func multiQuestionQueryIsDelayedAndAnsweredInOnePacket() throws {
        var h = try settled()
        let asked = h.now
        h.receive(
            .query([DNSQuestion(name: F.typeName, type: .ptr), DNSQuestion(name: F.instance, type: .srv)])
        )
        h.advance(by: .seconds(1))
        let responses = h.responses(since: asked)
        try #require(responses.count == 1)
        let delay = responses[0].time - asked
        #expect(delay >= .milliseconds(20) && delay <= .milliseconds(120))
        #expect(responses[0].answers(F.ptr()))
        #expect(responses[0].answers(F.srv()))
    }

    // MARK: Known-answer suppression

    /// D7, §7.1: a known answer with at least half the true TTL suppresses ours (4500 → 2250 suppresses).
    @Test func knownAnswerAtHalfTTLSuppresses() throws {
        var h = try settled()
        let asked = h.now
        h.receive(F.query(F.typeName, .ptr, knownAnswers: [F.ptr(ttl: 2250)]))
        h.receive(F.query(F.instance, .srv, knownAnswers: [F.srv(ttl: 60, cacheFlush: false)]))
        h.advance(by: .seconds(2))
        #expect(h.sent(since: asked).isEmpty)
    }

    /// D7, §7.1: a known answer below half the true TTL does not suppress (2249 of 4500, 59 of 120).
    @Test func knownAnswerBelowHalfTTLDoesNotSuppress() throws {
        var h = try settled()
        let asked = h.now
        h.receive(F.query(F.instance, .srv, knownAnswers: [F.srv(ttl: 59, cacheFlush: false)]))
        h.receive(F.query(F.typeName, .ptr, knownAnswers: [F.ptr(ttl: 2249)]))
        h.advance(by: .seconds(2))
        let responses = h.responses(since: asked)
        #expect(responses.filter { $0.answers(F.srv()) }.map(\.time) == [asked])
        #expect(responses.filter { $0.answers(F.ptr()) }.count == 1)
    }

    /// D7: a known answer for another instance of the type does not suppress ours.
    @Test func knownAnswerForOtherRecordDoesNotSuppress() throws {
        var h = try settled()
        let asked = h.now
        h.receive(F.query(F.typeName, .ptr, knownAnswers: [F.ptr(to: F.instance("Other"))]))
        h.advance(by: .seconds(1))
        #expect(h.responses(since: asked).filter { $0.answers(F.ptr()) }.count == 1)
    }

    /// D8, §7.2: a query with TC waits 400–500 ms for the continuation packets from the same source, then answers
    /// without the records listed in any of them.
    @Test func truncatedQueryWaitsForContinuationAndSuppresses() throws {
        let names = ["Alpha", "Bravo", "Charlie"]
        var h = try settled(services: names.map { F.kitchen(name: $0) })
        let asked = h.now
        var first = F.query(F.typeName, .ptr, knownAnswers: [F.ptr(to: F.instance("Alpha"))])
        first.truncated = true
        h.receive(first)
        h.advance(by: .milliseconds(100))
        h.receive(DNSMessage(isResponse: false, answers: [F.ptr(to: F.instance("Bravo"))]))
        h.advance(by: .seconds(2))
        let responses = h.responses(since: asked)
        try #require(responses.count == 1)
        let delay = responses[0].time - asked
        #expect(delay >= .milliseconds(400) && delay <= .milliseconds(500))
        #expect(responses[0].message.answers == [F.ptr(to: F.instance("Charlie"))])
    }

    /// D8, §7.2: another continuation packet with TC extends the wait to 400–500 ms after that packet.
    @Test func truncatedContinuationExtendsTheWait() throws {
        let names = ["Alpha", "Bravo", "Charlie"]
        var h = try settled(services: names.map { F.kitchen(name: $0) })
        let asked = h.now
        var first = F.query(F.typeName, .ptr, knownAnswers: [F.ptr(to: F.instance("Alpha"))])
        first.truncated = true
        h.receive(first)
        h.advance(by: .milliseconds(300))
        let second = h.now
        var more = DNSMessage(isResponse: false, answers: [F.ptr(to: F.instance("Bravo"))])
        more.truncated = true
        h.receive(more)
        h.advance(by: .seconds(2))
        let responses = h.responses(since: asked)
        try #require(responses.count == 1)
        let delay = responses[0].time - second
        #expect(delay >= .milliseconds(400) && delay <= .milliseconds(500))
        #expect(responses[0].message.answers == [F.ptr(to: F.instance("Charlie"))])
    }

    /// D8: continuation packets from another source do not count as known answers for this query.
    @Test func continuationFromOtherSourceIsNotMerged() throws {
        let names = ["Alpha", "Bravo"]
        var h = try settled(services: names.map { F.kitchen(name: $0) })
        let asked = h.now
        var first = F.query(F.typeName, .ptr, knownAnswers: [F.ptr(to: F.instance("Alpha"))])
        first.truncated = true
        h.receive(first)
        h.advance(by: .milliseconds(50))
        let other = MDNSEndpoint(address: .v4(IPv4Address(10, 0, 0, 10)), port: 5353)
        h.receive(DNSMessage(isResponse: false, answers: [F.ptr(to: F.instance("Bravo"))]), from: other)
        h.advance(by: .seconds(2))
        let responses = h.responses(since: asked)
        try #require(responses.count == 1)
        #expect(responses[0].message.answers == [F.ptr(to: F.instance("Bravo"))])
    }

    // MARK: Duplicate answers and rate limits

    /// D9, §7.4: another host multicasting the same answer (TTL ≥ ours) while ours is pending cancels ours.
    @Test func duplicateAnswerFromAnotherHostSuppressesOurs() throws {
        var h = try settled()
        let asked = h.now
        h.receive(F.query(F.typeName, .ptr))
        h.advance(by: .milliseconds(10))
        h.receive(
            .response(answers: [F.ptr()]),
            from: MDNSEndpoint(address: .v4(IPv4Address(10, 0, 0, 77)), port: 5353)
        )
        h.advance(by: .seconds(2))
        #expect(h.sent(since: asked).isEmpty)
    }

    /// D9: a duplicate with a lower TTL than ours does not suppress our answer.
    @Test func duplicateAnswerWithLowerTTLDoesNotSuppressOurs() throws {
        var h = try settled()
        let asked = h.now
        h.receive(F.query(F.typeName, .ptr))
        h.advance(by: .milliseconds(10))
        h.receive(
            .response(answers: [F.ptr(ttl: 3000)]),
            from: MDNSEndpoint(address: .v4(IPv4Address(10, 0, 0, 77)), port: 5353)
        )
        h.advance(by: .seconds(2))
        let responses = h.responses(since: asked)
        try #require(responses.count == 1)
        let delay = responses[0].time - asked
        #expect(delay >= .milliseconds(20) && delay <= .milliseconds(120))
    }

    /// D10, §6: a record is multicast on a link at most once per second; a throttled answer is delayed, not
    /// dropped, and later queries merge into it.
    @Test func perRecordMulticastRateLimitDelaysAnswers() throws {
        var h = try settled()
        let asked = h.now
        h.receive(F.query(F.instance, .srv))
        h.advance(by: .milliseconds(200))
        h.receive(F.query(F.instance, .srv))
        h.advance(by: .milliseconds(300))
        h.receive(F.query(F.instance, .srv))
        h.advance(by: .seconds(3))
        let srv = h.responses(since: asked).filter { $0.answers(F.srv()) }
        #expect(srv.map { $0.time - asked } == [.zero, .seconds(1)])
    }

    /// D10: right after the last announcement, an answer waits until a second has passed since it.
    @Test func answerRightAfterAnnouncementWaitsOneSecond() throws {
        var h = try ResponderHarness()
        h.register()
        h.runUntilIdle()
        let last = try #require(h.announcements(of: F.srv()).last)
        #expect(h.now == last.time)
        h.advance(by: .milliseconds(300))
        h.receive(F.query(F.instance, .srv))
        h.advance(by: .seconds(2))
        let answers = h.announcements(of: F.srv()).filter { $0.time > last.time }
        #expect(answers.map(\.time) == [last.time + .seconds(1)])
    }

    // MARK: Unicast and legacy

    /// D5, A2, §5.4: a QU question for a record multicast within a quarter of its TTL is answered by unicast to
    /// the querier's address and port 5353, with ID 0.
    @Test func quQuestionIsAnsweredByUnicastWhenRecentlyMulticast() throws {
        var h = try settled()
        let asked = h.now
        h.receive(F.query(F.hostName, .a, unicastResponse: true))
        h.advance(by: .seconds(1))
        let responses = h.sent(since: asked)
        try #require(responses.count == 1)
        #expect(responses[0].time == asked)
        #expect(responses[0].unicastTarget == MDNSEndpoint(address: F.peer.address, port: 5353))
        #expect(responses[0].link == F.linkV4)
        #expect(responses[0].message.id == 0)
        #expect(responses[0].message.questions.isEmpty)
        #expect(responses[0].message.answers == [F.a()])
    }

    /// D5, §5.4: a QU question for a record not multicast within a quarter of its TTL (30 s for an A record) is
    /// answered by multicast instead.
    @Test func quQuestionIsAnsweredByMulticastWhenNotMulticastWithinQuarterTTL() throws {
        var h = try settled()
        h.advance(by: .seconds(30))
        let asked = h.now
        h.receive(F.query(F.hostName, .a, unicastResponse: true))
        h.advance(by: .seconds(1))
        let responses = h.sent(since: asked)
        try #require(responses.count == 1)
        #expect(responses[0].time == asked)
        #expect(responses[0].isMulticast)
        #expect(responses[0].message.answers == [F.a()])
    }

    /// D14, §11: a multicast QU query from an address off our subnet is answered by multicast.
    @Test func quQueryFromOffLinkSourceIsAnsweredByMulticast() throws {
        var h = try settled()
        let asked = h.now
        h.receive(F.query(F.hostName, .a, unicastResponse: true), from: F.offLinkPeer)
        h.advance(by: .seconds(1))
        let responses = h.sent(since: asked)
        try #require(responses.count == 1)
        #expect(responses[0].isMulticast)
        #expect(responses[0].message.answers == [F.a()])
    }

    /// D6, F5, §5.5: a query sent to our unicast address from an on-link source is answered by unicast; from an
    /// off-link source it is dropped.
    @Test func unicastAddressedQueryIsAnsweredOnlyFromOnLink() throws {
        var h = try settled()
        let offLink = h.now
        h.receive(F.query(F.hostName, .a), from: F.offLinkPeer, multicast: false)
        h.receive(F.query(F.typeName, .ptr), from: F.offLinkPeer, multicast: false)
        h.advance(by: .seconds(1))
        #expect(h.sent(since: offLink).isEmpty)

        let onLink = h.now
        h.receive(F.query(F.hostName, .a), from: F.peer, multicast: false)
        h.advance(by: .seconds(1))
        let responses = h.sent(since: onLink)
        try #require(responses.count == 1)
        #expect(responses[0].unicastTarget == F.peer)
        #expect(responses[0].message.answers == [F.a()])
    }

    /// D11, §6.7: a query from a port other than 5353 gets a unicast reply to that address and port, with the
    /// query's ID and question, TTL at most 10 s, no cache-flush bits, and nothing by multicast.
    @Test func legacyUnicastQueryIsAnsweredWithIDAndQuestionEchoed() throws {
        var h = try settled()
        let asked = h.now
        var query = F.query(F.hostName, .a)
        query.id = 0x1234
        h.receive(query, from: F.legacyPeer)
        h.advance(by: .seconds(2))
        let responses = h.sent(since: asked)
        try #require(responses.count == 1)
        let reply = responses[0]
        #expect(reply.time == asked)
        #expect(reply.unicastTarget == F.legacyPeer)
        #expect(reply.message.id == 0x1234)
        #expect(reply.message.isResponse)
        #expect(reply.message.questions == [DNSQuestion(name: F.hostName, type: .a)])
        #expect(reply.message.answers == [DNSRecord(name: F.hostName, data: .a(F.ipv4), ttl: 10)])
        #expect(reply.records.allSatisfy { $0.ttl <= 10 && !$0.cacheFlush })
        #expect(Array(reply.wire[0..<6]) == [0x12, 0x34, 0x84, 0x00, 0x00, 0x01])
    }

    /// D11, A9, §18.14: a legacy PTR reply carries SRV/TXT/addresses with TTL ≤ 10 and no cache-flush, and the
    /// SRV target is not compressed on the wire.
    @Test func legacyUnicastReplyDoesNotCompressSRVTarget() throws {
        var h = try settled()
        let asked = h.now
        var query = F.query(F.typeName, .ptr)
        query.id = 0xBEEF
        h.receive(query, from: F.legacyPeer)
        h.advance(by: .seconds(2))
        let responses = h.sent(since: asked)
        try #require(responses.count == 1)
        let reply = responses[0]
        #expect(reply.unicastTarget == F.legacyPeer)
        #expect(reply.message.id == 0xBEEF)
        #expect(reply.message.answers == [DNSRecord(name: F.typeName, data: .ptr(F.instance), ttl: 10)])
        #expect(reply.message.additionals.contains(F.srv(ttl: 10, cacheFlush: false)))
        #expect(reply.records.allSatisfy { $0.ttl <= 10 && !$0.cacheFlush })
        #expect(!reply.outgoing.compressSRVTarget)
        let srvData: [UInt8] = [0, 0, 0, 0, 0x1F, 0x90] + F.hostName.uncompressedBytes
        let wire = reply.wire
        #expect((0...(wire.count - srvData.count)).contains { Array(wire[$0..<$0 + srvData.count]) == srvData })
    }

    // MARK: What is answered

    /// A13, §6.5: an ANY question for the instance name returns all its records: SRV and TXT.
    @Test func anyQuestionReturnsSRVAndTXT() throws {
        var h = try settled()
        let asked = h.now
        h.receive(F.query(F.instance, .any))
        h.advance(by: .seconds(1))
        let responses = h.responses(since: asked)
        try #require(responses.count == 1)
        #expect(responses[0].time == asked)
        let answers = responses[0].message.answers
        #expect(Set(answers) == [F.srv(), F.txt()])
        #expect(answers.count == 2)
    }

    /// A13: an ANY question for the host name returns both address records.
    @Test func anyQuestionForHostReturnsAllAddresses() throws {
        var h = try settled()
        let asked = h.now
        h.receive(F.query(F.hostName, .any))
        h.advance(by: .seconds(1))
        let responses = h.responses(since: asked)
        try #require(responses.count == 1)
        #expect(Set(responses[0].message.answers) == [F.a(), F.aaaa()])
    }

    /// A10, §16: names compare case-insensitively: an upper-case query is answered.
    @Test func upperCaseQueryNamesAreAnswered() throws {
        var h = try settled()
        let asked = h.now
        h.receive(F.query("KITCHEN._HTTP._TCP.LOCAL", .srv))
        h.receive(F.query("HUDDLE.LOCAL", .a))
        h.advance(by: .seconds(1))
        let responses = h.responses(since: asked)
        #expect(responses.contains { $0.answers(F.srv()) })
        #expect(responses.contains { $0.answers(F.a()) })
        h.advance(by: .seconds(2))
        let ptrAsked = h.now
        h.receive(F.query("_HTTP._TCP.LOCAL", .ptr))
        h.advance(by: .seconds(1))
        #expect(h.responses(since: ptrAsked).contains { $0.answers(F.ptr()) })
    }

    /// D2: questions about names we do not own get no reply at all (no empty or negative responses).
    @Test func unknownNamesGetNoReply() throws {
        var h = try settled()
        let asked = h.now
        h.receive(F.query(F.instance("Nobody"), .srv))
        h.receive(F.query("other.local", .a))
        h.receive(F.query("_ipp._tcp.local", .ptr))
        h.receive(F.query(F.instance("Nobody"), .any))
        h.advance(by: .seconds(2))
        #expect(h.sent(since: asked).isEmpty)
    }

    /// A3, §18.3, §18.11: queries with a non-zero OPCODE or RCODE are ignored.
    @Test func queriesWithNonZeroOpcodeOrRcodeAreIgnored() throws {
        var h = try settled()
        let asked = h.now
        var opcode = F.query(F.hostName, .a)
        opcode.opcode = 2
        h.receive(opcode)
        var rcode = F.query(F.instance, .srv)
        rcode.rcode = 1
        h.receive(rcode)
        h.advance(by: .seconds(2))
        #expect(h.sent(since: asked).isEmpty)
    }

    /// A14, D13, §6.1: an AAAA question to an IPv4-only host gets an NSEC in the restricted form: next name = the
    /// name itself, window 0, bitmap with only the A bit, TTL 120, cache-flush.
    @Test func missingAAAAOnIPv4OnlyHostIsAnsweredWithNSEC() throws {
        var h = try settled(interfaces: [F.eth0IPv4Only])
        let asked = h.now
        h.receive(F.query(F.hostName, .aaaa))
        h.advance(by: .seconds(1))
        let responses = h.responses(since: asked)
        try #require(responses.count == 1)
        #expect(responses[0].time == asked)
        let nsec = try #require(responses[0].message.answers.first)
        #expect(responses[0].message.answers.count == 1)
        #expect(nsec.name == F.hostName)
        #expect(nsec.data == .nsec(next: F.hostName, types: [.a]))
        #expect(nsec.ttl == 120)
        #expect(nsec.cacheFlush)
        #expect(nsec.data.canonicalBytes == F.hostName.uncompressedBytes + [0x00, 0x01, 0x40])
    }

    /// D13, B7, §6.2: an A answer of an IPv4-only host carries the NSEC for AAAA in the additional section.
    @Test func addressAnswerOfIPv4OnlyHostCarriesNSECInAdditionals() throws {
        var h = try settled(interfaces: [F.eth0IPv4Only])
        let asked = h.now
        h.receive(F.query(F.hostName, .a))
        h.advance(by: .seconds(1))
        let responses = h.responses(since: asked)
        try #require(responses.count == 1)
        #expect(responses[0].message.answers == [F.a()])
        let nsec = DNSRecord(name: F.hostName, data: .nsec(next: F.hostName, types: [.a]), ttl: 120, cacheFlush: true)
        #expect(responses[0].message.additionals.contains(nsec))
    }

    /// §6.1: a missing type at the instance name gets an NSEC listing SRV and TXT.
    @Test func missingTypeAtInstanceNameIsAnsweredWithNSEC() throws {
        var h = try settled()
        let asked = h.now
        h.receive(F.query(F.instance, .a))
        h.advance(by: .seconds(1))
        let responses = h.responses(since: asked)
        try #require(responses.count == 1)
        let nsec = try #require(responses[0].message.answers.first)
        #expect(nsec.data == .nsec(next: F.instance, types: [.srv, .txt]))
        #expect(nsec.cacheFlush)
        #expect(nsec.data.canonicalBytes == F.instance.uncompressedBytes + [0x00, 0x05, 0x00, 0x00, 0x80, 0x00, 0x40])
    }

    /// C10, §10.2: a response with one record of a unique RRset carries the whole set (both A records).
    @Test func addressAnswerCarriesTheWholeRRset() throws {
        let twoAddresses = MDNSInterface(
            index: 2,
            name: "eth0",
            ipv4: [MDNSPrefix(F.ipv4, length: 24), MDNSPrefix(IPv4Address(10, 0, 0, 3), length: 24)],
            ipv6: []
        )
        var h = try settled(interfaces: [twoAddresses])
        let asked = h.now
        h.receive(F.query(F.hostName, .a))
        h.advance(by: .seconds(1))
        let responses = h.responses(since: asked)
        try #require(responses.count == 1)
        #expect(Set(responses[0].message.answers) == [F.a(), F.a(IPv4Address(10, 0, 0, 3))])
        #expect(responses[0].message.answers.allSatisfy { $0.cacheFlush })
    }

    /// D12, §6.2, §14: answers on a link carry only the addresses of that interface.
    @Test func addressesOfOtherInterfacesNeverLeak() throws {
        let eth1 = MDNSInterface(
            index: 3,
            name: "eth1",
            ipv4: [MDNSPrefix(IPv4Address(192, 168, 1, 2), length: 24)],
            ipv6: [MDNSPrefix(IPv6Address("fe80::3")!, length: 64)]
        )
        var h = try settled(interfaces: [F.eth0, eth1])
        let eth1Link = MDNSLink(interfaceIndex: 3, family: .v4)
        let asked = h.now
        h.receive(
            F.query(F.hostName, .a),
            from: MDNSEndpoint(address: .v4(IPv4Address(192, 168, 1, 9)), port: 5353),
            on: eth1Link
        )
        h.advance(by: .seconds(1))
        let responses = h.sent(since: asked)
        try #require(responses.count == 1)
        #expect(responses[0].link == eth1Link)
        #expect(responses[0].message.answers == [F.a(IPv4Address(192, 168, 1, 2))])
        #expect(responses[0].message.additionals == [F.aaaa(IPv6Address("fe80::3")!)])
        let leaked = h.sent.filter { packet in
            packet.link.interfaceIndex == 2
                && packet.records.contains { $0.data == .a(IPv4Address(192, 168, 1, 2)) }
        }
        #expect(leaked.isEmpty)
    }

    /// B9, §4: off by default, since the system's responder owns the reverse mapping of the machine's
    /// addresses (Avahi probes it with its host name, and two claims would conflict without end).
    @Test func reverseMappingIsNotPublishedByDefault() throws {
        var h = try settled()
        let asked = h.now
        h.receive(F.query("2.0.0.10.in-addr.arpa", .ptr))
        h.advance(by: .seconds(1))
        #expect(h.sent(since: asked).isEmpty)
        #expect(!h.sent.contains { $0.records.contains { $0.name.hasSuffix("in-addr.arpa") } })
    }

    /// B9, §4: when enabled, the host answers reverse-mapping PTR queries for its addresses
    /// (`d.c.b.a.in-addr.arpa.` and the nibble `ip6.arpa.` form) with its host name: unique, cache-flush, TTL 120.
    @Test func reverseAddressQueriesAreAnsweredWithTheHostName() throws {
        var configuration = MDNSResponderConfiguration()
        configuration.publishReverseMapping = true
        var h = try ResponderHarness(interfaces: [F.eth0], configuration: configuration, seed: 7)
        h.register(F.kitchen())
        h.runUntilIdle()
        h.advance(by: .seconds(10))
        let asked = h.now
        let reverseV4: DNSName = "2.0.0.10.in-addr.arpa"
        h.receive(F.query(reverseV4, .ptr))
        h.advance(by: .seconds(1))
        let v4 = h.responses(since: asked).flatMap(\.message.answers).filter { $0.name == reverseV4 }
        #expect(v4 == [DNSRecord(name: reverseV4, data: .ptr(F.hostName), ttl: 120, cacheFlush: true)])

        let nibbles = F.ipv6.bytes.reversed().flatMap { [$0 & 0x0F, $0 >> 4] }.map { String($0, radix: 16) }
        let reverseV6 = try DNSName(parsing: nibbles.joined(separator: ".") + ".ip6.arpa")
        let askedV6 = h.now
        h.receive(F.query(reverseV6, .ptr), from: F.peerV6, on: F.linkV6)
        h.advance(by: .seconds(1))
        let v6 = h.sent(since: askedV6).flatMap(\.message.answers).filter { $0.name == reverseV6 }
        #expect(v6 == [DNSRecord(name: reverseV6, data: .ptr(F.hostName), ttl: 120, cacheFlush: true)])
    }
}
