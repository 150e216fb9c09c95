import Huddle
import HuddleTestSupport
import HuddleTransport
import NIOCore
import Synchronization
import Testing

@Suite("A slow peer")
struct SlowPeerTests {
    /// A session whose events nobody reads until `release()`.
    final class StalledReader: Sendable {
        let session: PeerSession
        let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let received = Mutex<[[UInt8]]>([])
        let released = Atomic<Bool>(false)

        init(_ session: PeerSession) { self.session = session }

        func start() {
            Task {
                if !released.load(ordering: .acquiring) {
                    await withCheckedContinuation { c in gate.withLock { $0 = c } }
                }
                for await event in session.events {
                    if case .received(let bytes, _) = event { received.withLock { $0.append(bytes) } }
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
        let budget = 2 * 1024 * 1024
        let directory = InMemoryPeerDirectory()
        let probes = try await makeSessions(["Ada", "Bob"], directory: directory) {
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
        let cy = try await PeerSession(
            sessionID: "TypingTogether",
            displayName: "Cy",
            configuration: configuration,
            directory: directory,
            identity: .ephemeral(),
            trustStore: TrustStore()
        )
        try await cy.start()
        let stalled = StalledReader(cy)
        stalled.start()
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
        _ = await bob.wait(seconds: 20) { event -> Bool? in
            if case .received(let bytes, adaID) = event, bytes.count == 3 * 1024 * 1024 + 3 { return true }
            return nil
        }
        let atBob = bob.messages(from: adaID)
        #expect(atBob.count == 4)
        for (index, bytes) in atBob.enumerated() {
            #expect(bytes == Self.message(index, size: 3 * 1024 * 1024 + index))
        }

        // The sends towards Cy are held up, and Cy holds no more than its budget and one message.
        for _ in 0..<200 where cy.undeliveredBytes <= budget { try await Task.sleep(for: .milliseconds(50)) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(cy.undeliveredBytes <= budget + (1 << 20))
        #expect(cy.undeliveredBytes > 0)
        // Cy's reader wakes up: everything arrives, whole and in order.
        stalled.release()
        try await towardsCy.value
        for _ in 0..<400 where stalled.received.withLock({ $0.count }) < 24 {
            try await Task.sleep(for: .milliseconds(50))
        }
        let atCy = stalled.received.withLock { $0 }
        #expect(atCy.count == 24)
        #expect(atCy.enumerated().allSatisfy { $0.element == Self.message($0.offset, size: 1 << 20) })
        await cy.stop()
        for probe in probes { await probe.session.stop() }
    }
}
