import HuddleDNS
import NIOCore
import Testing

@testable import HuddleMDNSCore

@Suite("Querier: cache maintenance (RFC 6762 §5.2, §10.4, §10.5)")
struct QuerierCacheMaintenanceTests {
    /// Announces a service with 10 s TTLs, then lets the responder die.
    func driverWithShortTTLs() -> (QuerierDriver, Int64) {
        var driver = QuerierDriver.browsing()
        driver.receive(
            .response(answers: [
                TestRecords.ptr("Svc", ttl: 10), TestRecords.srv("Svc", ttl: 10), TestRecords.txt("Svc", ttl: 10),
                TestRecords.a(ttl: 10),
            ])
        )
        return (driver, driver.clock.elapsedMilliseconds)
    }

    /// Found by FuzzMDNSEngine: a TTL near 2^32 overflowed the known-answer check (`remaining × 2`) and trapped.
    @Test("a record with a TTL near 2^32 is a known answer without overflow")
    func hugeTTLKnownAnswer() {
        var driver = QuerierDriver.browsing()
        driver.receive(.response(answers: [TestRecords.ptr("Svc", ttl: 0xFFFF_1194)]))
        driver.sent = []
        driver.run(untilMilliseconds: driver.clock.elapsedMilliseconds + 5_000)
        let known = driver.queries.flatMap(\.message.answers).filter { $0.data == .ptr(TestRecords.instance("Svc")) }
        #expect(!known.isEmpty)
    }

    @Test("refresh queries at 80, 85, 90 and 95 % of the TTL (+0–2 %), removal at 100 %")
    func refreshSchedule() {
        var (driver, start) = self.driverWithShortTTLs()
        driver.sent = []
        driver.run(untilMilliseconds: start + 11_000)
        let srvQueries = driver.queries.filter { $0.message.questions.contains { $0.type == .srv } }.map {
            $0.ms - start
        }
        #expect(srvQueries.count == 4, "\(srvQueries)")
        for (index, time) in srvQueries.enumerated() {
            let low = Int64(8000 + 500 * index)
            #expect((low...low + 200).contains(time), "refresh \(index) at \(time) ms")
        }
        let removal = driver.events.first { if case .removed = $0.event { true } else { false } }
        #expect(removal.map { $0.ms - start } == 10_000)
    }

    @Test("an answer to a refresh query keeps the instance")
    func refreshAnswered() {
        var (driver, start) = self.driverWithShortTTLs()
        driver.run(untilMilliseconds: start + 8300)
        driver.receive(
            .response(answers: [
                TestRecords.ptr("Svc", ttl: 10), TestRecords.srv("Svc", ttl: 10), TestRecords.txt("Svc", ttl: 10),
                TestRecords.a(ttl: 10),
            ])
        )
        driver.run(untilMilliseconds: start + 12_000)
        #expect(!driver.events.contains { if case .removed = $0.event { true } else { false } })
    }

    @Test("POOF: two unanswered queries from other hosts flush the record within ten seconds")
    func passiveObservationOfFailures() {
        var driver = QuerierDriver.browsing()
        driver.receive(TestRecords.announcement("Svc"))
        driver.clock.advance(.seconds(5))
        let firstQuery = driver.clock.elapsedMilliseconds
        let question = DNSQuestion(name: TestRecords.instance("Svc"), type: .srv)
        driver.receive(.query([question]), from: TestNet.hostC)
        driver.clock.advance(.seconds(1))
        driver.receive(.query([question]), from: TestNet.hostC)
        driver.run(untilMilliseconds: firstQuery + 10_001)
        let removal = driver.events.first { if case .removed = $0.event { true } else { false } }
        #expect(removal.map { $0.ms - firstQuery } == 10_000)
    }

    @Test("our own queries do not count towards POOF")
    func ownQueriesDoNotPoof() {
        var driver = QuerierDriver.browsing()
        driver.receive(TestRecords.announcement("Svc"))
        let question = DNSQuestion(name: TestRecords.instance("Svc"), type: .srv)
        driver.receive(.query([question]), from: TestNet.hostB)
        driver.receive(.query([question]), from: TestNet.hostB)
        driver.run(untilMilliseconds: 30_000)
        #expect(driver.querier.services.count == 1)
    }

    @Test("reconfirm sends two queries and flushes an unanswered record within ten seconds (RFC 6762 §10.4)")
    func reconfirm() {
        var driver = QuerierDriver.browsing()
        driver.receive(TestRecords.announcement("Svc"))
        driver.clock.advance(.seconds(3))
        let start = driver.clock.elapsedMilliseconds
        driver.sent = []
        driver.querier.reconfirm(TestRecords.instance("Svc"), now: driver.clock.now)
        driver.collect()
        driver.run(untilMilliseconds: start + 10_001)
        let srvQueries = driver.queries.filter { $0.message.questions.contains { $0.type == .srv } }
        #expect(srvQueries.count >= 2)
        let removal = driver.events.first { if case .removed = $0.event { true } else { false } }
        #expect(removal.map { $0.ms - start } == 10_000)
    }

    @Test("the cache never holds more than its capacity")
    func boundedCache() {
        var configuration = MDNSQuerierConfiguration()
        configuration.cacheCapacity = 100
        var driver = QuerierDriver(configuration: configuration)
        driver.querier.browse(TestNet.labType, now: driver.clock.now)
        for batch in 0..<5 {
            let records = (0..<50).map { TestRecords.ptr("Flood \(batch)-\($0)") }
            driver.receive(.response(answers: records))
        }
        #expect(driver.querier.cache.count == 100)
    }

    @Test("leaving an interface forgets what was learned on it (RFC 6762 §10.3)")
    func interfaceRemoval() {
        var driver = QuerierDriver.browsing()
        driver.receive(TestRecords.announcement("Svc"))
        #expect(driver.querier.services.count == 1)
        driver.querier.setLinks([], ownAddresses: [], now: driver.clock.now)
        driver.collect()
        #expect(driver.querier.services.isEmpty)
        #expect(driver.events.last?.event == .removed(TestRecords.instance("Svc")))
    }
}

@Suite("Querier: nothing browsed")
struct QuerierIdleTests {
    @Test("a querier that browses nothing caches nothing (a responder-only process stays light)")
    func idleQuerierKeepsNoCache() {
        var driver = QuerierDriver()
        driver.receive(TestRecords.announcement("Svc"))
        #expect(driver.querier.cache.count == 0)
        #expect(driver.querier.nextDeadline == nil)
        driver.querier.browse(TestNet.labType, now: driver.clock.now)
        driver.receive(TestRecords.announcement("Svc"))
        #expect(driver.querier.cache.count == 4)
    }
}
