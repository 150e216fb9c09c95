import HuddleDNS
import HuddleMDNSCore
import NIOCore
import Testing

private typealias F = ResponderFixture

/// A responder with the given services established, 10 s after the last announcement.
private func settled(
    families: Set<MDNSFamily> = [.v4, .v6],
    interfaces: [MDNSInterface] = [F.eth0],
    services: [MDNSServiceRegistration] = [F.kitchen()]
) throws -> (ResponderHarness, [MDNSServiceID]) {
    var h = try ResponderHarness(families: families, interfaces: interfaces)
    let ids = services.map { h.register($0) }
    h.runUntilIdle()
    for id in ids { #expect(h.responder.isEstablished(id)) }
    h.advance(by: .seconds(10))
    return (h, ids)
}

/// Whether `haystack` contains `needle` as a contiguous run of bytes.
private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<$0 + needle.count]) == needle }
}

/// DNS-SD records, additional records, goodbyes, updates and network changes (RFC 6763 §4–§12; RFC 6762 §8.4,
/// §10.1, §13, §17; checklist B1, B4–B8, C11–C13, A6, A11).
@Suite("RFC 6763 service records")
struct RFC6763ServiceRecordsTests {
    // MARK: Records and additional records

    /// B7, §12: a PTR answer carries the SRV, the TXT and all addresses of the SRV target in the additional
    /// section (dual-stack host: no NSEC).
    @Test func ptrAnswerCarriesSRVTXTAndAddresses() throws {
        var (h, _) = try settled()
        let asked = h.now
        h.receive(F.query(F.typeName, .ptr))
        h.advance(by: .seconds(1))
        let responses = h.responses(since: asked)
        try #require(responses.count == 1)
        let message = responses[0].message
        #expect(message.questions.isEmpty)
        #expect(message.answers == [F.ptr()])
        #expect(Set(message.additionals) == [F.srv(), F.txt(), F.a(), F.aaaa()])
        #expect(message.additionals.count == 4)
    }

    /// B7: an SRV answer carries the target's addresses.
    @Test func srvAnswerCarriesAddresses() throws {
        var (h, _) = try settled()
        let asked = h.now
        h.receive(F.query(F.instance, .srv))
        h.advance(by: .seconds(1))
        let responses = h.responses(since: asked)
        try #require(responses.count == 1)
        #expect(responses[0].message.answers == [F.srv()])
        #expect(Set(responses[0].message.additionals) == [F.a(), F.aaaa()])
    }

    /// B5, §9: `_services._dns-sd._udp.local.` PTR lists each service type once, shared (no cache-flush), TTL 4500,
    /// after the shared-answer delay.
    @Test func serviceTypeEnumerationListsEachTypeOnce() throws {
        let printer = F.kitchen(name: "Printer", type: MDNSServiceType(serviceName: "ipp"), port: 631)
        var (h, _) = try settled(services: [F.kitchen(), F.kitchen(name: "Bedroom"), printer])
        let asked = h.now
        h.receive(F.query(dnssdServicesName, .ptr))
        h.advance(by: .seconds(1))
        let responses = h.responses(since: asked)
        try #require(responses.count == 1)
        let delay = responses[0].time - asked
        #expect(delay >= .milliseconds(20) && delay <= .milliseconds(120))
        let answers = responses[0].message.answers
        #expect(answers.count == 2)
        #expect(
            Set(answers) == [
                F.ptr(dnssdServicesName, to: F.typeName), F.ptr(dnssdServicesName, to: "_ipp._tcp.local"),
            ]
        )
        #expect(answers.allSatisfy { !$0.cacheFlush && $0.ttl == 4500 })
    }

    /// B4, §7.1: a subtype PTR `<sub>._sub.<type>` points at the instance, is announced with the service as a
    /// shared record, and a query for it gets the SRV and TXT as additionals.
    @Test func subtypePTRIsAnnouncedAndAnswered() throws {
        let subtypeName: DNSName = "_printer._sub._http._tcp.local"
        var (h, _) = try settled(services: [F.kitchen(subtypes: ["_printer"])])
        let announced = h.announcements(of: F.ptr(subtypeName))
        #expect(announced.count == F.announceCount)
        let record = announced.first?.message.answers.first { $0.sameRecord(as: F.ptr(subtypeName)) }
        #expect(record?.cacheFlush == false)
        #expect(record?.ttl == 4500)

        let asked = h.now
        h.receive(F.query(subtypeName, .ptr))
        h.advance(by: .seconds(1))
        let responses = h.responses(since: asked)
        try #require(responses.count == 1)
        #expect(responses[0].message.answers == [F.ptr(subtypeName)])
        #expect(responses[0].message.additionals.contains(F.srv()))
        #expect(responses[0].message.additionals.contains(F.txt()))
    }

    /// B8, RFC 6762 §10: 120 s for records naming a host (SRV, A, AAAA), 4500 s for the others (PTR, TXT).
    @Test func defaultTTLs() throws {
        let (h, _) = try settled()
        func ttl(_ record: DNSRecord) -> UInt32? {
            h.announcements(of: record).first?.message.answers.first { $0.sameRecord(as: record) }?.ttl
        }
        #expect(ttl(F.srv()) == 120)
        #expect(ttl(F.a()) == 120)
        #expect(ttl(F.aaaa()) == 120)
        #expect(ttl(F.txt()) == 4500)
        #expect(ttl(F.ptr()) == 4500)
        #expect(ttl(F.ptr(dnssdServicesName, to: F.typeName)) == 4500)
    }

    /// B1: an instance name with dots, spaces and UTF-8 is one label, carried byte for byte.
    @Test func instanceNameWithDotsSpacesAndUTF8IsOneLabel() throws {
        let name = "My.Printer (Küche) 打印机"
        var (h, _) = try settled(services: [F.kitchen(name: name)])
        let instance = F.instance(name)
        #expect(instance.labels.count == 4)
        #expect(instance.labels[0] == Array(name.utf8))
        let announcement = try #require(h.announcements(of: F.ptr(to: instance)).first)
        let decoded = try DNSMessageDecoder().decode(announcement.wire)
        #expect(decoded.answers.contains { $0.data == .ptr(instance) && $0.name == F.typeName })
        let asked = h.now
        h.receive(F.query(instance, .srv))
        h.advance(by: .seconds(1))
        #expect(h.responses(since: asked).first?.message.answers == [F.srv(instance)])
    }

    /// B6, RFC 6763 §6.1: a service with no TXT data still has a TXT record: one zero byte, never empty rdata.
    @Test func emptyTXTIsOneZeroByteOnTheWire() throws {
        let (h, _) = try settled(services: [F.kitchen(txt: [])])
        let announcement = try #require(h.announcements(of: F.txt(F.instance, [])).first)
        // TYPE 16, CLASS IN with cache-flush, TTL 4500, RDLENGTH 1, RDATA 0x00.
        let txt: [UInt8] = [0x00, 0x10, 0x80, 0x01, 0x00, 0x00, 0x11, 0x94, 0x00, 0x01, 0x00]
        #expect(contains(announcement.wire, txt))
    }

    // MARK: Goodbyes

    /// C12, B4, RFC 6762 §10.1: unregistering sends the service's records (SRV, TXT, PTR, type-enumeration
    /// PTR, subtype PTR) with TTL 0, three times 125 ms apart, and not the host's addresses.
    @Test func unregisterSendsThreeGoodbyes125MillisecondsApart() throws {
        var (h, ids) = try settled(services: [F.kitchen(subtypes: ["_printer"])])
        let gone = h.now
        h.unregister(ids[0])
        h.runUntilIdle()
        let goodbyes = h.sent(since: gone, on: F.linkV4)
        try #require(goodbyes.count == 3)
        #expect(goodbyes.map { $0.time - gone } == [.zero, .milliseconds(125), .milliseconds(250)])
        let expected: [DNSRecord] = [
            F.srv(), F.txt(), F.ptr(), F.ptr(dnssdServicesName, to: F.typeName),
            F.ptr("_printer._sub._http._tcp.local"),
        ]
        for goodbye in goodbyes {
            #expect(goodbye.isMulticast && goodbye.isResponse)
            #expect(goodbye.message.answers.allSatisfy { $0.ttl == 0 })
            #expect(goodbye.message.answers.count == expected.count)
            for record in expected {
                #expect(goodbye.message.answers.contains { $0.sameRecord(as: record) })
            }
            #expect(!goodbye.records.contains { $0.type == .a || $0.type == .aaaa })
        }
        #expect(h.sent(since: gone, on: F.linkV6).count == 3)
        #expect(h.responder.nextDeadline == nil)
    }

    /// After unregistering, the service's names are not answered any more.
    @Test func unregisteredServiceIsNotAnswered() throws {
        var (h, ids) = try settled()
        h.unregister(ids[0])
        h.advance(by: .seconds(5))
        let asked = h.now
        h.receive(F.query(F.typeName, .ptr))
        h.receive(F.query(F.instance, .srv))
        h.receive(F.query(F.instance, .any))
        h.advance(by: .seconds(2))
        #expect(h.sent(since: asked).isEmpty)
    }

    /// C12, RFC 6762 §10.1: a goodbye is for records that are no longer valid. With another `_http._tcp` service
    /// still registered, `_services._dns-sd._udp.local. PTR _http._tcp.local.` is still valid and must not be
    /// goodbye'd (peers would drop the type from their service-type lists).
    @Test func unregisterKeepsTypeEnumerationPTRStillInUse() throws {
        var (h, ids) = try settled(services: [F.kitchen(), F.kitchen(name: "Bedroom")])
        let gone = h.now
        h.unregister(ids[0])
        h.runUntilIdle()
        let goodbyes = h.sent(since: gone, on: F.linkV4)
        try #require(goodbyes.count == 3)
        let typeEnumeration = F.ptr(dnssdServicesName, to: F.typeName)
        #expect(!goodbyes.contains { $0.records.contains { $0.sameRecord(as: typeEnumeration) } })
        #expect(goodbyes.allSatisfy { $0.answers(F.ptr()) })
    }

    /// RFC 6762 §6, §10.1: an answer still waiting for its delay when the service is withdrawn must not go out
    /// after the goodbye (it would bring the dead service back in every cache for 75 minutes).
    @Test func unregisterCancelsPendingAnswers() throws {
        var (h, ids) = try settled()
        h.receive(F.query(F.typeName, .ptr))  // answered after 20–120 ms
        h.advance(by: .milliseconds(5))
        let gone = h.now
        h.unregister(ids[0])
        h.advance(by: .seconds(2))
        let resurrected = h.sent(since: gone).filter { packet in
            packet.records.contains { $0.data == .ptr(F.instance) && $0.ttl > 0 }
        }
        #expect(resurrected.isEmpty)
    }

    /// C12: shutdown sends goodbyes for every announced record, the host's addresses included, three times
    /// 125 ms apart, then nothing is scheduled and nothing is answered.
    @Test func shutdownSendsGoodbyesForEverything() throws {
        var (h, _) = try settled()
        let stop = h.now
        h.shutdown()
        h.runUntilIdle()
        let goodbyes = h.sent(since: stop, on: F.linkV4)
        try #require(goodbyes.count == 3)
        #expect(goodbyes.map { $0.time - stop } == [.zero, .milliseconds(125), .milliseconds(250)])
        for goodbye in goodbyes {
            #expect(goodbye.message.answers.allSatisfy { $0.ttl == 0 })
            for record in [F.srv(), F.txt(), F.ptr(), F.ptr(dnssdServicesName, to: F.typeName), F.a(), F.aaaa()] {
                #expect(goodbye.message.answers.contains { $0.sameRecord(as: record) })
            }
        }
        #expect(h.responder.nextDeadline == nil)
        h.advance(by: .seconds(1))
        let asked = h.now
        h.receive(F.query(F.typeName, .ptr))
        h.receive(F.query(F.hostName, .a))
        h.advance(by: .seconds(2))
        #expect(h.sent(since: asked).isEmpty)
    }

    // MARK: Updates

    /// C11, RFC 6762 §8.4: new TXT data is announced at once (cache-flush), again after 1 s and 2 s more, with no
    /// probing and no new events.
    @Test func txtUpdateIsAnnouncedWithoutProbing() throws {
        var (h, ids) = try settled()
        let eventsBefore = h.events.count
        let changed = h.now
        h.update(ids[0], txt: ["path=/new"])
        h.runUntilIdle()
        let newTXT = F.txt(F.instance, ["path=/new"])
        let announcements = h.announcements(of: newTXT)
        #expect(announcements.map { $0.time - changed } == F.announcementOffsets)
        let sentTXT = announcements.first?.message.answers.first { $0.sameRecord(as: newTXT) }
        #expect(sentTXT?.cacheFlush == true)
        #expect(sentTXT?.ttl == 4500)
        #expect(h.sent(since: changed).allSatisfy { $0.isResponse })
        #expect(h.events.count == eventsBefore)
        #expect(h.responder.registrations[ids[0]]?.txt == (try MDNSTXTRecord(arguments: ["path=/new"])))

        h.advance(by: .seconds(5))
        let asked = h.now
        h.receive(F.query(F.instance, .txt))
        #expect(h.responses(since: asked).first?.message.answers == [newTXT])
    }

    /// C11: a port change re-announces the SRV with the new port, without probing.
    @Test func portUpdateIsAnnouncedWithoutProbing() throws {
        var (h, ids) = try settled()
        let changed = h.now
        h.update(ids[0], port: 9090)
        h.runUntilIdle()
        #expect(h.announcements(of: F.srv(port: 9090)).map { $0.time - changed } == F.announcementOffsets)
        #expect(h.sent(since: changed).allSatisfy { $0.isResponse })
    }

    /// C11, RFC 6762 §6, §8.4: an answer delayed by the rate limit must not carry the old TXT after an update
    /// (with cache-flush it would replace the new data in every cache).
    @Test func updateLeavesNoStaleDataInDelayedAnswers() throws {
        var (h, ids) = try settled()
        let asked = h.now
        h.receive(F.query(F.instance, .txt))  // answered at once
        h.advance(by: .milliseconds(200))
        h.receive(F.query(F.instance, .txt))  // throttled until 1 s after the first answer
        h.advance(by: .milliseconds(100))
        let changed = h.now
        h.update(ids[0], txt: ["path=/new"])
        h.advance(by: .seconds(2))
        let newTXT = F.txt(F.instance, ["path=/new"])
        #expect(h.announcements(of: newTXT).first?.time == changed)
        #expect(h.responses(since: asked).filter { $0.answers(F.txt()) }.first?.time == asked)
        let stale = h.sent(since: changed).filter { packet in
            packet.records.contains { $0.sameRecord(as: F.txt()) && $0.ttl > 0 }
        }
        #expect(stale.isEmpty)
    }

    // MARK: Network changes

    /// C13, C12, RFC 6762 §8, §10.1: a changed address sends goodbyes for the old address, probes the names again
    /// with the new address, and announces it.
    @Test func addressChangeSendsGoodbyeThenProbesAndAnnouncesNewAddress() throws {
        var (h, _) = try settled()
        let changed = h.now
        let newAddress = IPv4Address(10, 0, 0, 5)
        let renumbered = MDNSInterface(
            index: 2,
            name: "eth0",
            ipv4: [MDNSPrefix(newAddress, length: 24)],
            ipv6: [MDNSPrefix(F.ipv6, length: 64)]
        )
        h.setInterfaces([renumbered])
        h.runUntilIdle()

        let goodbyes = h.sent(since: changed, on: F.linkV4).filter { packet in
            packet.isResponse && packet.message.answers.allSatisfy { $0.ttl == 0 }
        }
        #expect(goodbyes.map { $0.time - changed } == [.zero, .milliseconds(125), .milliseconds(250)])
        let reverse: DNSName = "2.0.0.10.in-addr.arpa"
        for goodbye in goodbyes {
            // The old A record, and at most its reverse-mapping PTR: nothing that is still valid.
            #expect(goodbye.message.answers.contains { $0.sameRecord(as: F.a()) })
            #expect(
                goodbye.message.answers.allSatisfy {
                    $0.sameRecord(as: F.a()) || ($0.name == reverse && $0.data == .ptr(F.hostName))
                }
            )
        }

        let hostProbes = h.probes(for: F.hostName).filter { $0.time >= changed }
        try #require(hostProbes.count == 3)
        #expect(hostProbes[0].time - changed <= .milliseconds(250))
        #expect(
            Set(hostProbes[0].message.authorities.filter { $0.name == F.hostName }.map(\.data)) == [
                .a(newAddress), .aaaa(F.ipv6),
            ]
        )
        #expect(h.probes(for: F.instance).filter { $0.time >= changed }.count == 3)
        let announced = h.announcements(of: F.a(newAddress))
        #expect(announced.count >= 2)
        #expect(announced.first.map { $0.time - hostProbes[2].time } == .milliseconds(250))
        #expect(h.announcements(of: F.a()).filter { $0.time >= changed }.isEmpty)
    }

    /// C13: an added address is probed and announced with the old one; nothing is goodbye'd.
    @Test func addedAddressIsAnnouncedWithoutGoodbye() throws {
        var (h, _) = try settled()
        let changed = h.now
        let second = IPv4Address(10, 0, 0, 3)
        let twoAddresses = MDNSInterface(
            index: 2,
            name: "eth0",
            ipv4: [MDNSPrefix(F.ipv4, length: 24), MDNSPrefix(second, length: 24)],
            ipv6: [MDNSPrefix(F.ipv6, length: 64)]
        )
        h.setInterfaces([twoAddresses])
        h.runUntilIdle()
        #expect(!h.sent(since: changed).contains { $0.records.contains { $0.ttl == 0 } })
        let announcement = try #require(h.announcements(of: F.a(second)).first)
        #expect(announcement.answers(F.a()))
        #expect(announcement.time > changed)
    }

    // MARK: Packet size

    /// A11, A6, RFC 6762 §17: with 60 services, every datagram (probes after a network change included) fits a
    /// 1500-byte IPv4 link (1472 bytes of DNS payload), and every response has answers and no questions.
    @Test func sixtyServicesFitIPv4PacketsAndResponsesAlwaysHaveAnswers() throws {
        let services = (1...60).map { number in
            let padded = number < 10 ? "0\(number)" : "\(number)"
            return F.kitchen(
                name: "Service \(padded)",
                port: UInt16(8000 + number),
                txt: ["path=/service/\(padded)/with/a/longer/path", "version=1.2.3", "model=HuddleTestDevice"]
            )
        }
        var (h, _) = try settled(families: [.v4], services: services)
        let asked = h.now
        h.receive(F.query(F.typeName, .ptr))
        h.advance(by: .seconds(1))
        let answered = Set(h.responses(since: asked).flatMap(\.message.answers).filter { $0.name == F.typeName })
        #expect(answered.count == 60)

        h.advance(by: .seconds(10))
        h.setInterfaces([
            MDNSInterface(
                index: 2,
                name: "eth0",
                ipv4: [MDNSPrefix(IPv4Address(10, 0, 0, 5), length: 24)],
                ipv6: [MDNSPrefix(F.ipv6, length: 64)]
            )
        ])
        h.runUntilIdle()
        h.advance(by: .seconds(10))
        h.shutdown()
        h.runUntilIdle()

        #expect(h.sent.allSatisfy { $0.link.family == .v4 })
        let oversized = h.sent.filter { $0.wire.count > 1472 }.map { packet in
            "\(packet.isResponse ? "response" : "query") of \(packet.wire.count) bytes "
                + "(\(packet.message.questions.count) questions, \(packet.records.count) records)"
        }
        #expect(oversized == [])
        for packet in h.sent where packet.isResponse {
            #expect(!packet.message.answers.isEmpty)
            #expect(packet.message.questions.isEmpty)
        }
        for packet in h.sent {
            #expect(throws: Never.self) { try DNSMessageDecoder().decode(packet.wire) }
        }
    }
}
