import Foundation
import HuddleForeign
import HuddleLocalSendWire
import HuddleTestSupport
import Synchronization
import Testing

@testable import HuddleLocalSend

/// The inbox on a manual clock: whoever is asked answers at once, as the user would.
@Suite struct LocalSendInboxTests {
    final class Box<Value: Sendable>: Sendable {
        let mutex: Mutex<Value>
        init(_ value: Value) { mutex = Mutex(value) }
        var value: Value { mutex.withLock { $0 } }
        func set(_ value: Value) { mutex.withLock { $0 = value } }
        func update(_ change: (inout Value) -> Void) { mutex.withLock { change(&$0) } }
    }

    final class Harness: Sendable {
        let clock = Box(ContinuousClock.Instant.testTime(0))
        let events = Box<[ForeignEvent]>([])
        let inbox = Box<LocalSendInbox?>(nil)

        init() {
            let clock = self.clock
            let events = self.events
            let box = self.inbox
            let accept = ForeignOfferAnswer.accept(into: URL(fileURLWithPath: "/nonexistent"))
            inbox.set(
                LocalSendInbox(takesOffers: true, now: { clock.value }) { event in
                    events.update { $0.append(event) }
                    if case .offered(let offer) = event, let inbox = box.value {
                        Task { await inbox.answer(offer.id, with: accept) }
                    }
                }
            )
        }

        var service: LocalSendInbox { inbox.value! }

        func offer(from host: String, at now: ContinuousClock.Instant) async -> LocalSendInbox.Prepared {
            clock.set(now)
            let request = LocalSendReceiveSessionTests.request(files: ["f"])
            let peer = ForeignPeer(id: .init(protocol: .localSend, value: host), name: host, address: host)
            return await service.prepare(request, from: peer, host: host)
        }
    }

    static func accepted(_ prepared: LocalSendInbox.Prepared) -> LocalSendPrepareUploadAnswer? {
        if case .accepted(let answer) = prepared { return answer }
        return nil
    }

    @Test func anAcceptedSessionWithoutUploadsEndsAfterAMinuteAndFreesTheInbox() async throws {
        let harness = Harness()
        let first = try #require(Self.accepted(await harness.offer(from: "10.0.0.66", at: .testTime(0))))
        guard case .refused(409, _) = await harness.offer(from: "10.0.0.2", at: .testTime(59)) else {
            Issue.record("a second session while the first may still upload")
            return
        }
        #expect(Self.accepted(await harness.offer(from: "10.0.0.2", at: .testTime(60))) != nil)
        #expect(
            harness.events.value.contains { if case .failed = $0 { true } else { false } }
        )
        // The expired session's token no longer uploads.
        let late = await harness.service.startUpload(
            session: first.sessionId,
            file: "f",
            token: first.files["f"],
            host: "10.0.0.66"
        )
        guard case .failure(let refusal) = late else {
            Issue.record("an expired session took an upload")
            return
        }
        #expect(refusal.status == 409 || refusal.status == 403)
    }

    @Test func uploadProgressKeepsASessionAlive() async throws {
        let harness = Harness()
        let first = try #require(Self.accepted(await harness.offer(from: "10.0.0.5", at: .testTime(0))))
        harness.clock.set(.testTime(50))
        let started = await harness.service.startUpload(
            session: first.sessionId,
            file: "f",
            token: first.files["f"],
            host: "10.0.0.5"
        )
        guard case .success = started else {
            Issue.record("upload refused")
            return
        }
        harness.clock.set(.testTime(100))
        #expect(await harness.service.isCurrent(first.sessionId))
        guard case .refused(409, _) = await harness.offer(from: "10.0.0.2", at: .testTime(150)) else {
            Issue.record("a progressing session was ended")
            return
        }
        #expect(Self.accepted(await harness.offer(from: "10.0.0.2", at: .testTime(160))) != nil)
    }

    @Test func theDeadlineRuleOnAManualClock() {
        var deadline = LocalSendIdleDeadline(startedAt: .testTime(10))
        #expect(!deadline.hasExpired(at: .testTime(69.9)))
        #expect(deadline.hasExpired(at: .testTime(70)))
        deadline.progressed(at: .testTime(50))
        #expect(!deadline.hasExpired(at: .testTime(109)))
        #expect(deadline.hasExpired(at: .testTime(110)))
        deadline.progressed(at: .testTime(20))
        #expect(deadline.lastProgress == .testTime(50))
    }
}
