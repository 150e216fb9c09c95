import HuddleTestSupport
import HuddleTransport
import NIOCore
import Synchronization
import Testing

@testable import Huddle

@Suite("A slow peer", .tags(.real), .timeLimit(.minutes(2)))
struct SlowPeerTests {
    /// A session whose events nobody reads until `release()`.
    final class StalledReader: Sendable {
        let session: PeerSession
        let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)
        /// The messages read once released, in order.
        let received = EventRecorder<[UInt8]>()
        let released = Atomic<Bool>(false)

        init(_ session: PeerSession) { self.session = session }

        func start() {
            Task {
                if !released.load(ordering: .acquiring) {
                    await withCheckedContinuation { c in gate.withLock { $0 = c } }
                }
                for await event in session.events {
                    if case .received(let bytes, _, _) = event { received.record(bytes) }
                }
            }
        }

        func release() {
            released.store(true, ordering: .releasing)
            gate.withLock {
                $0?.resume()
                $0 = nil
            }
        }
    }

    /// A message that shows its index at both ends and in every byte between.
    static func message(_ index: Int, size: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: index &* 37 &+ 1), count: size)
        withUnsafeBytes(of: UInt64(index).bigEndian) { tag in
            bytes.replaceSubrange(0..<8, with: tag)
            bytes.replaceSubrange((size - 8)..<size, with: tag)
        }
        return bytes
    }

    @Test func aStalledReaderHoldsUpOnlyItsOwnSendsAndMemoryStaysBounded() async throws {
        try await withTestScope { scope in
            let budget = 2 * 1024 * 1024
            let directory = InMemoryPeerDirectory()
            let probes = try await scope.sessions(["Ada", "Bob"], directory: directory) {
                $0.trustsOnFirstUse = true
                $0.connection.maximumMessageSize = 8 * 1024 * 1024
            }
            let (ada, bob) = (probes[0], probes[1])
            // Cy's application does not read its events.
            var configuration = PeerSessionConfiguration()
            configuration.listenHost = "127.0.0.1"
            configuration.trustsOnFirstUse = true
            configuration.maximumUndeliveredBytes = budget
            configuration.connection.maximumMessageSize = 8 * 1024 * 1024
            let pauses = EventRecorder<any Channel>()
            configuration.receivePaused = pauses.sink
            let cy = try await PeerSession(
                sessionID: "TypingTogether",
                displayName: "Cy",
                configuration: configuration,
                directory: directory,
                identity: .ephemeral(),
                trustStore: TrustStore()
            )
            scope.stop(cy)
            try await cy.start()
            let stalled = StalledReader(cy)
            stalled.start()
            defer { stalled.release() }
            let bobID = try #require(await ada.found(named: "Bob")).id
            let cyID = try #require(await ada.found(named: "Cy")).id
            try await ada.session.connect(to: bobID)
            try await ada.session.connect(to: cyID)

            // 24 messages of 1 MiB towards Cy: far more than its budget plus the socket buffers.
            let towardsCy = Task {
                for index in 0..<24 { try await ada.session.send(Self.message(index, size: 1 << 20), to: [cyID]) }
            }
            // Meanwhile Bob gets messages of several MiB, complete and in order.
            for index in 0..<4 {
                try await ada.session.send(Self.message(index, size: 3 * 1024 * 1024 + index), to: [bobID])
            }
            let adaID = try #require(
                await bob.wait { event -> PeerID? in
                    if case .stateChanged(let peer, .connected) = event { return peer }
                    return nil
                }
            )
            _ = await bob.wait { event -> Bool? in
                if case .received(let bytes, adaID, _) = event, bytes.count == 3 * 1024 * 1024 + 3 { return true }
                return nil
            }
            let atBob = bob.messages(from: adaID)
            #expect(atBob.count == 4)
            for (index, bytes) in atBob.enumerated() {
                #expect(bytes == Self.message(index, size: 3 * 1024 * 1024 + index))
            }

            // Cy's budget is spent: its connection from Ada stops reading. The pause is made on that connection's
            // event loop while it handles a read; once a task queued there after it has run, that read is over and
            // nothing more is read until Cy's reader catches up. The sends towards Cy are held up from here on, and
            // Cy holds no more than its budget and one message.
            let paused = try #require(await pauses.first { $0 })
            try await paused.eventLoop.submit {}.get()
            #expect(try await paused.getOption(.autoRead).get() == false)
            #expect(cy.undeliveredBytes <= budget + (1 << 20))
            #expect(cy.undeliveredBytes > budget)
            // Cy's reader wakes up: everything arrives, whole and in order.
            stalled.release()
            try await towardsCy.value
            #expect(await stalled.received.count(atLeast: 24) { _ in true })
            let atCy = stalled.received.events
            #expect(atCy.count == 24)
            #expect(atCy.enumerated().allSatisfy { $0.element == Self.message($0.offset, size: 1 << 20) })
        }
    }
}
