import HuddleDNS
import NIOCore
import Testing

@testable import HuddleMDNSCore

@Suite("Querier: browsing and resolving (RFC 6763 §4, §12)")
struct QuerierResolveTests {
    @Test("one announcement with PTR, SRV, TXT and A resolves at once")
    func resolvesFromOneAnnouncement() throws {
        var driver = QuerierDriver.browsing()
        driver.receive(TestRecords.announcement("Kitchen", port: 8080, txt: ["room=kitchen", "flag"]))
        let event = try #require(driver.events.last?.event)
        guard case .added(let service) = event else {
            Issue.record("expected added, got \(event)")
            return
        }
        #expect(service.instanceName == "Kitchen")
        #expect(service.type == "_lab._tcp")
        #expect(service.domain == "local")
        #expect(service.host == TestRecords.host)
        #expect(service.port == 8080)
        #expect(service.txt["room"] == .some(Array("kitchen".utf8)))
        #expect(service.txt["flag"] == .some(nil))
        #expect(service.addresses == [MDNSScopedAddress(address: .v4(TestNet.hostA), interfaceIndex: 2)])
    }

    @Test("a PTR alone makes the querier ask for SRV and TXT, then for the host's addresses")
    func asksForWhatIsMissing() throws {
        var driver = QuerierDriver.browsing()
        driver.sent = []
        driver.receive(.response(answers: [TestRecords.ptr("Svc")]))
        driver.run(untilMilliseconds: 300)
        let asked = Set(driver.queries.flatMap(\.message.questions).map { "\($0.name) \($0.type)" })
        #expect(asked.contains("Svc._lab._tcp.local. SRV"))
        #expect(asked.contains("Svc._lab._tcp.local. TXT"))
        #expect(driver.addedNames.isEmpty)
        driver.sent = []
        driver.receive(.response(answers: [TestRecords.srv("Svc"), TestRecords.txt("Svc")]))
        driver.run(untilMilliseconds: 400)
        let askedAddresses = Set(driver.queries.flatMap(\.message.questions).map { "\($0.name) \($0.type)" })
        #expect(askedAddresses == ["hosta.local. A", "hosta.local. AAAA"])
        driver.receive(.response(answers: [TestRecords.a()]))
        #expect(driver.addedNames == ["Svc"])
        // Once resolved, the resolve questions stop.
        driver.sent = []
        driver.run(untilMilliseconds: 3000)
        #expect(driver.queries.flatMap(\.message.questions).allSatisfy { $0.type == .ptr })
    }

    @Test("a TXT change is reported as an update")
    func txtUpdate() throws {
        var driver = QuerierDriver.browsing()
        driver.receive(TestRecords.announcement("Svc", txt: ["v=1"]))
        driver.clock.advance(.seconds(3))
        driver.receive(.response(answers: [TestRecords.txt("Svc", ["v=2"])]))
        driver.run(untilMilliseconds: 5000)
        let updates = driver.events.compactMap { if case .updated(let s) = $0.event { s } else { nil } }
        #expect(updates.count == 1)
        #expect(updates.first?.txt["v"] == .some(Array("2".utf8)))
    }

    @Test("a goodbye removes the instance after one second, not before (RFC 6762 §10.1)")
    func goodbyeGrace() throws {
        var driver = QuerierDriver.browsing()
        driver.receive(TestRecords.announcement("Svc"))
        driver.clock.advance(.seconds(5))
        let goodbyeAt = driver.clock.elapsedMilliseconds
        driver.receive(.response(answers: [TestRecords.ptr("Svc", ttl: 0)]))
        driver.run(untilMilliseconds: goodbyeAt + 999)
        #expect(!driver.events.contains { if case .removed = $0.event { true } else { false } })
        driver.run(untilMilliseconds: goodbyeAt + 1001)
        let removal = driver.events.first { if case .removed = $0.event { true } else { false } }
        #expect(removal?.ms == goodbyeAt + 1000)
        #expect(removal?.event == .removed(TestRecords.instance("Svc")))
    }

    @Test("a goodbye followed by a fresh announcement within the second is no removal")
    func goodbyeRescued() {
        var driver = QuerierDriver.browsing()
        driver.receive(TestRecords.announcement("Svc"))
        driver.clock.advance(.seconds(5))
        driver.receive(.response(answers: [TestRecords.ptr("Svc", ttl: 0)]))
        driver.clock.advance(.milliseconds(300))
        driver.receive(.response(answers: [TestRecords.ptr("Svc")]))
        driver.run(untilMilliseconds: 10_000)
        #expect(!driver.events.contains { if case .removed = $0.event { true } else { false } })
    }

    @Test("type enumeration reports each type once (RFC 6763 §9)")
    func typeEnumeration() {
        var driver = QuerierDriver()
        driver.querier.browseServiceTypes(now: driver.clock.now)
        driver.run(untilMilliseconds: 200)
        let types: [DNSName] = ["_lab._tcp.local", "_http._tcp.local"]
        driver.receive(.response(answers: types.map { DNSRecord(name: dnssdServicesName, data: .ptr($0), ttl: 4500) }))
        driver.receive(.response(answers: [DNSRecord(name: dnssdServicesName, data: .ptr(types[0]), ttl: 4500)]))
        let found = driver.events.compactMap { if case .typeFound(let name) = $0.event { name } else { nil } }
        #expect(found.sorted { $0.description < $1.description } == ["_http._tcp.local", "_lab._tcp.local"])
        #expect(driver.queries.first?.message.questions.first?.name == dnssdServicesName)
    }

    @Test("responses from a port other than 5353, and unsolicited unicast responses, are ignored (RFC 6762 §6, §11)")
    func ignoredResponses() {
        var driver = QuerierDriver.browsing()
        driver.receive(TestRecords.announcement("FromHighPort"), port: 40_000)
        driver.receive(TestRecords.announcement("Unicast"), multicast: false)
        #expect(driver.addedNames.isEmpty)
        #expect(driver.querier.cache.count == 0)
    }

    @Test("a record with cache-flush makes older ones of its RRset expire one second later (RFC 6762 §10.2)")
    func cacheFlush() throws {
        var driver = QuerierDriver.browsing()
        driver.receive(TestRecords.announcement("Svc"))
        driver.clock.advance(.seconds(2))
        let flushAt = driver.clock.elapsedMilliseconds
        driver.receive(.response(answers: [TestRecords.a(TestNet.hostC)]))
        driver.run(untilMilliseconds: flushAt + 999)
        var service = try #require(driver.querier.services[TestRecords.instance("Svc")])
        #expect(service.addresses.count == 2)
        driver.run(untilMilliseconds: flushAt + 1000)
        service = try #require(driver.querier.services[TestRecords.instance("Svc")])
        #expect(service.addresses == [MDNSScopedAddress(address: .v4(TestNet.hostC), interfaceIndex: 2)])
    }

    @Test("records of one RRset received within a second of each other are all kept")
    func multiPacketRRset() throws {
        var driver = QuerierDriver.browsing()
        driver.receive(TestRecords.announcement("Svc"))
        driver.clock.advance(.milliseconds(500))
        driver.receive(.response(answers: [TestRecords.a(TestNet.hostC)]))
        driver.run(untilMilliseconds: 5000)
        let service = try #require(driver.querier.services[TestRecords.instance("Svc")])
        #expect(service.addresses.count == 2)
    }
}
