import HuddleDNS
import NIOCore
import Testing

@testable import HuddleMDNSCore

@Suite("Querier: continuous querying (RFC 6762 §5.2, §7)")
struct QuerierSchedulingTests {
    @Test("first query after 20–120 ms, then 1 s, 2 s, 4 s, 8 s apart")
    func firstQueryDelayAndDoubling() {
        for seed in UInt64(1)...20 {
            var driver = QuerierDriver(seed: seed)
            driver.querier.browse(TestNet.labType, now: driver.clock.now)
            driver.collect()
            driver.run(untilMilliseconds: 16_000)
            let times = driver.queries.map(\.ms)
            #expect(times.count == 5, "seed \(seed): \(times)")
            guard times.count == 5 else { continue }
            #expect((20...120).contains(times[0]), "seed \(seed): first query at \(times[0]) ms")
            let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
            #expect(gaps == [1000, 2000, 4000, 8000], "seed \(seed): gaps \(gaps)")
        }
    }

    @Test("the browse question is a QM PTR question for the type, from an mDNS query with ID 0")
    func browseQuestionShape() throws {
        let driver = QuerierDriver.browsing()
        let query = try #require(driver.queries.first?.message)
        #expect(query.id == 0)
        #expect(!query.isResponse)
        #expect(query.questions == [DNSQuestion(name: TestNet.labTypeName, type: .ptr)])
        #expect(query.answers.isEmpty)
    }

    @Test("while unicast replies can reach only us, the first query of a series is QU and the next ones QM (§5.4)")
    func firstQueryIsQUWhenAlone() {
        for alone in [true, false] {
            var driver = QuerierDriver()
            driver.querier.unicastRepliesReachOnlyUs = alone
            driver.querier.browse(TestNet.labType, now: driver.clock.now)
            driver.run(untilMilliseconds: 4_000)
            let bits = driver.queries.map { $0.message.questions.map(\.unicastResponse) }
            #expect(bits == [[alone], [false], [false]], "alone \(alone): \(bits)")
        }
    }

    @Test("the series keeps doubling up to the one-hour cap")
    func intervalCap() {
        var driver = QuerierDriver()
        driver.querier.browse(TestNet.labType, now: driver.clock.now)
        driver.run(untilMilliseconds: 4 * 3_600_000)
        let times = driver.queries.map(\.ms)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps.max() == 3_600_000)
        #expect(gaps.filter { $0 == 3_600_000 }.count >= 2)
    }

    @Test("known answers carry the remaining TTL, only while more than half of it is left, without cache-flush")
    func knownAnswerList() throws {
        var driver = QuerierDriver.browsing()
        driver.receive(.response(answers: [TestRecords.ptr("Svc", ttl: 100)]))
        let receivedAt = driver.clock.elapsedMilliseconds
        driver.run(untilMilliseconds: 40_000)
        let ptrQueries = driver.queries.filter { $0.message.questions.contains { $0.type == .ptr } }
        let afterAnswer = ptrQueries.filter { $0.ms > receivedAt }
        #expect(!afterAnswer.isEmpty)
        for query in afterAnswer {
            let age = (query.ms - receivedAt) / 1000
            let known = query.message.answers.filter { $0.type == .ptr }
            if age < 50 {
                let record = try #require(known.first, "query at \(query.ms) ms lacks the known answer")
                #expect(record.ttl == UInt32(100 - age) || record.ttl == UInt32(99 - age))
                #expect(!record.cacheFlush)
            } else {
                #expect(known.isEmpty, "a record past half its TTL must not be listed (at \(query.ms) ms)")
            }
        }
    }

    @Test("a long known-answer list spills into continuation packets with TC set, each within 1472 bytes")
    func truncatedKnownAnswers() throws {
        var driver = QuerierDriver.browsing()
        let names = (0..<200).map { "Instance number \($0) with a long name" }
        driver.receive(.response(answers: names.map { TestRecords.ptr($0) }))
        driver.sent = []
        driver.run(untilMilliseconds: 1300)
        let packets = driver.queries.map(\.message).filter { $0.questions.isEmpty || $0.questions[0].type == .ptr }
        #expect(packets.count >= 2)
        #expect(packets.first?.questions.first?.name == TestNet.labTypeName)
        #expect(packets.dropLast().allSatisfy { $0.truncated })
        #expect(packets.last?.truncated == false)
        #expect(packets.dropFirst().allSatisfy { $0.questions.isEmpty })
        for packet in packets { #expect(packet.encoded().readableBytes <= 1472) }
        let listed = Set(packets.flatMap(\.answers).compactMap { if case .ptr(let t) = $0.data { t } else { nil } })
        #expect(listed.count == 200)
    }

    @Test("another host asking our question with our known answers counts as our query (RFC 6762 §7.3)")
    func duplicateQuestionSuppression() {
        var driver = QuerierDriver.browsing()
        let sentBefore = driver.queries.count
        // Our next query is due about 1 s after the first; another host asks 300 ms before that.
        let next = driver.querier.nextDeadline!
        driver.clock.now = next - .milliseconds(300)
        driver.receive(.query([DNSQuestion(name: TestNet.labTypeName, type: .ptr)]), from: TestNet.hostC)
        driver.run(untilMilliseconds: driver.clock.elapsedMilliseconds + 400)
        #expect(driver.queries.count == sentBefore, "our duplicate query should have been suppressed")
    }

    @Test("a QU question from another host does not suppress ours")
    func unicastQuestionDoesNotSuppress() {
        var driver = QuerierDriver.browsing()
        let sentBefore = driver.queries.count
        let next = driver.querier.nextDeadline!
        driver.clock.now = next - .milliseconds(300)
        driver.receive(
            .query([DNSQuestion(name: TestNet.labTypeName, type: .ptr, unicastResponse: true)]),
            from: TestNet.hostC
        )
        driver.run(untilMilliseconds: driver.clock.elapsedMilliseconds + 400)
        #expect(driver.queries.count == sentBefore + 1)
    }
}
