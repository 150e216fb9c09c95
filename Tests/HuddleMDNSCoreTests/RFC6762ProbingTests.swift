import HuddleDNS
import HuddleMDNSCore
import NIOCore
import Testing

private typealias F = ResponderFixture

/// Probing and announcing (RFC 6762 §8.1, §8.3; checklist C1, C9, C13).
@Suite("RFC 6762 §8 probing and announcing")
struct RFC6762ProbingTests {
    /// C1: initial random delay 0–250 ms, then three probes exactly 250 ms apart.
    @Test func threeProbesTwoHundredFiftyMillisecondsApartAfterInitialDelay() throws {
        var h = try ResponderHarness()
        h.register()
        h.advance(by: .seconds(3))
        let probes = h.probes(for: F.instance)
        try #require(probes.count == 3)
        let initial = probes[0].time - h.start
        #expect(initial >= .zero)
        #expect(initial <= .milliseconds(250))
        #expect(probes[1].time - probes[0].time == .milliseconds(250))
        #expect(probes[2].time - probes[1].time == .milliseconds(250))
        #expect(probes.allSatisfy { $0.isMulticast })
    }

    /// C1: over many seeds, the initial delay stays within 0–250 ms and is actually random.
    @Test func initialProbeDelayIsRandomWithinZeroTo250Milliseconds() throws {
        var delays: [TimeAmount] = []
        for seed in UInt64(1)...48 {
            var h = try ResponderHarness(seed: seed)
            h.register()
            let probeSent = h.nextProbe(for: F.instance, limit: .seconds(1))
            let probe = try #require(probeSent)
            delays.append(probe.time - h.start)
        }
        #expect(delays.allSatisfy { $0 >= .zero && $0 <= .milliseconds(250) })
        #expect(Set(delays.map(\.nanoseconds)).count >= 40)
        #expect(delays.max()! - delays.min()! >= .milliseconds(150))
    }

    /// C1: the question is the instance name, type ANY, class IN; the first probe is QU, the others QM.
    @Test func probeQuestionsAreAnyFirstQUThenQM() throws {
        var h = try ResponderHarness()
        h.register()
        h.advance(by: .seconds(3))
        let probes = h.probes(for: F.instance)
        try #require(probes.count == 3)
        let questions = probes.compactMap { $0.message.questions.first { $0.name == F.instance } }
        #expect(questions.map(\.type) == [.any, .any, .any])
        #expect(questions.map(\.questionClass) == [.internet, .internet, .internet])
        #expect(questions.map(\.unicastResponse) == [true, false, false])
        for probe in probes {
            #expect(probe.message.id == 0)
            #expect(!probe.message.isResponse)
            #expect(probe.message.answers.isEmpty)
            // On the wire: QR=0, opcode 0; QU is the top bit of the question class (RFC 6762 §5.4, §18.12).
            #expect(probe.wire[2] & 0xF8 == 0)
        }
        let decoded = try DNSMessageDecoder().decode(probes[0].wire)
        #expect(decoded.questions.first { $0.name == F.instance }?.unicastResponse == true)
    }

    /// C1, §8.2: the authority section carries the proposed unique records: SRV and TXT, no shared PTR.
    @Test func serviceProbeAuthorityIsSRVAndTXT() throws {
        var h = try ResponderHarness()
        h.register()
        h.advance(by: .seconds(3))
        let probes = h.probes(for: F.instance)
        try #require(probes.count == 3)
        for probe in probes {
            let proposed = probe.message.authorities.filter { $0.name == F.instance }
            #expect(proposed.count == 2)
            #expect(
                Set(proposed.map(\.data)) == [
                    .srv(priority: 0, weight: 0, port: 8080, target: F.hostName), .txt([Array("path=/".utf8)]),
                ]
            )
            // Shared records are never probed for: neither the type PTR nor the type-enumeration PTR.
            #expect(!probe.message.authorities.contains { $0.name == F.typeName || $0.name == dnssdServicesName })
        }
    }

    /// C1: the host name is probed too, with all of the interface's addresses (A and AAAA) on every link.
    @Test func hostProbeAuthorityIsAllAddressRecords() throws {
        var h = try ResponderHarness()
        h.register()
        h.advance(by: .seconds(3))
        for link in [F.linkV4, F.linkV6] {
            let probes = h.probes(for: F.hostName, on: link)
            #expect(probes.count == 3)
            for probe in probes {
                let proposed = probe.message.authorities.filter { $0.name == F.hostName }
                #expect(Set(proposed.map(\.data)) == [.a(F.ipv4), .aaaa(F.ipv6)])
                #expect(proposed.count == 2)
            }
            if probes.count == 3 {
                #expect(probes[1].time - probes[0].time == .milliseconds(250))
                #expect(probes[2].time - probes[1].time == .milliseconds(250))
            }
        }
    }

    /// §8.1: names being probed for are not used to answer queries yet.
    @Test func recordsBeingProbedAreNotUsedInAnswers() throws {
        var h = try ResponderHarness()
        h.register()
        let probeSent = h.nextProbe(for: F.instance)
        let probe = try #require(probeSent)
        h.receive(F.query(F.typeName, .ptr))
        h.receive(F.query(F.instance, .srv))
        let asked = h.now
        h.advance(to: probe.time + .milliseconds(200))
        let answers = h.responses(since: asked).filter { $0.answers(F.ptr()) || $0.answers(F.srv()) }
        #expect(answers.isEmpty)
    }

    /// C1: a conflicting response seen before the first probe is not a conflict.
    @Test func conflictBeforeFirstProbeIsIgnored() throws {
        // Find a seed whose service probe starts late enough to slip a response in before it.
        var chosen: UInt64?
        for seed in UInt64(1)...32 {
            var probe = try ResponderHarness(seed: seed)
            probe.register()
            if let first = probe.nextProbe(for: F.instance, limit: .seconds(1)),
                first.time - probe.start >= .milliseconds(50)
            {
                chosen = seed
                break
            }
        }
        let seed = try #require(chosen)
        var h = try ResponderHarness(seed: seed)
        let id = h.register()
        h.advance(by: .milliseconds(10))
        #expect(h.probes(for: F.instance).isEmpty)
        h.receive(.response(answers: [F.srv(port: 9999, target: "other.local")]))
        h.runUntilIdle()
        #expect(h.events.map(\.event) == [.registered(id, name: "Kitchen")])
        #expect(h.responder.registrations[id]?.instanceName == "Kitchen")
    }

    /// The registered event comes when probing succeeds: 250 ms after the third probe.
    @Test func registeredEventComes250MillisecondsAfterTheThirdProbe() throws {
        var h = try ResponderHarness()
        let id = h.register()
        h.runUntilIdle()
        let probes = h.probes(for: F.instance)
        try #require(probes.count == 3)
        #expect(h.events.map(\.event) == [.registered(id, name: "Kitchen")])
        #expect(h.events.first?.time == probes[2].time + .milliseconds(250))
        #expect(h.responder.isEstablished(id))
    }

    /// C9: the first announcement goes out when probing of the service and of its host name is done.
    @Test func firstAnnouncementFollowsProbingBy250Milliseconds() throws {
        var h = try ResponderHarness()
        h.register()
        h.runUntilIdle()
        let serviceProbes = h.probes(for: F.instance)
        let hostProbes = h.probes(for: F.hostName)
        try #require(serviceProbes.count == 3 && hostProbes.count == 3)
        let decided = max(serviceProbes[2].time, hostProbes[2].time) + .milliseconds(250)
        let announcements = h.announcements(of: F.srv())
        try #require(!announcements.isEmpty)
        #expect(announcements[0].time == decided)
        #expect(h.announcements(of: F.a()).first?.time == hostProbes[2].time + .milliseconds(250))
    }

    /// C9: at least two announcements, one second apart, then doubling; never periodic afterwards.
    @Test func announcementsOneSecondApartThenDoublingAndNoMore() throws {
        var h = try ResponderHarness()
        h.register()
        h.runUntilIdle()
        let announcements = h.announcements(of: F.srv())
        try #require(announcements.count >= 2)
        #expect(announcements.count <= 8)
        let gaps = zip(announcements.dropFirst(), announcements).map { $0.time - $1.time }
        #expect(gaps.first == .seconds(1))
        for (later, earlier) in zip(gaps.dropFirst(), gaps) {
            #expect(later == earlier + earlier)
        }
        #expect(h.announcements(of: F.ptr()).map(\.time) == announcements.map(\.time))
        let count = h.sent.count
        h.advance(by: .seconds(3600))
        #expect(h.sent.count == count)
        #expect(h.responder.nextDeadline == nil)
    }

    /// C9, §18: announcements are responses with ID 0, AA, no questions; unique records carry cache-flush,
    /// shared PTRs do not.
    @Test func announcementHeaderAndCacheFlushBits() throws {
        var h = try ResponderHarness()
        h.register()
        h.runUntilIdle()
        let announcement = try #require(h.announcements(of: F.srv()).first)
        let message = announcement.message
        #expect(message.id == 0)
        #expect(message.isResponse)
        #expect(message.authoritative)
        #expect(!message.truncated)
        #expect(message.questions.isEmpty)
        #expect(Array(announcement.wire[0..<6]) == [0x00, 0x00, 0x84, 0x00, 0x00, 0x00])
        func sent(_ record: DNSRecord) -> DNSRecord? { message.answers.first { $0.sameRecord(as: record) } }
        let srv = try #require(sent(F.srv()))
        let txt = try #require(sent(F.txt()))
        let ptr = try #require(sent(F.ptr()))
        let services = try #require(sent(F.ptr(dnssdServicesName, to: F.typeName)))
        #expect(srv.cacheFlush && srv.ttl == 120)
        #expect(txt.cacheFlush && txt.ttl == 4500)
        #expect(!ptr.cacheFlush && ptr.ttl == 4500)
        #expect(!services.cacheFlush && services.ttl == 4500)
        let host = try #require(h.announcements(of: F.a()).first)
        let a = try #require(host.message.answers.first { $0.sameRecord(as: F.a()) })
        let aaaa = try #require(host.message.answers.first { $0.sameRecord(as: F.aaaa()) })
        #expect(a.cacheFlush && a.ttl == 120)
        #expect(aaaa.cacheFlush && aaaa.ttl == 120)
    }

    /// C9, §14: probes and announcements go out on every link (each interface × family).
    @Test func announcementsGoOutOnEveryLink() throws {
        var h = try ResponderHarness()
        h.register()
        h.runUntilIdle()
        #expect(h.announcements(of: F.srv(), on: F.linkV4).count == F.announceCount)
        #expect(h.announcements(of: F.srv(), on: F.linkV6).count == F.announceCount)
        #expect(h.probes(for: F.instance, on: F.linkV6).count == 3)
    }

    /// C13: a new interface makes every name probe and announce again, there included.
    @Test func newInterfaceMakesNamesProbeAndAnnounceAgain() throws {
        var h = try ResponderHarness()
        h.registerAndSettle()
        h.advance(by: .seconds(10))
        let changed = h.now
        let eth1 = MDNSInterface(
            index: 3,
            name: "eth1",
            ipv4: [MDNSPrefix(IPv4Address(192, 168, 1, 2), length: 24)],
            ipv6: []
        )
        h.setInterfaces([F.eth0, eth1])
        h.runUntilIdle()
        let eth1Link = MDNSLink(interfaceIndex: 3, family: .v4)
        let probes = h.probes(for: F.instance, on: eth1Link)
        #expect(probes.count == 3)
        #expect(probes.first.map { $0.time - changed <= .milliseconds(250) } == true)
        let announcements = h.announcements(of: F.a(IPv4Address(192, 168, 1, 2)), on: eth1Link)
        #expect(announcements.count >= 2)
        #expect(h.announcements(of: F.srv(), on: eth1Link).count >= 2)
    }
}
