import Huddle
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

/// Unreliable messages between two sessions on a `MemoryNetwork`, whose datagrams go from socket to socket in order
/// and none lost: what arrives can be checked exactly.
@Suite("Unreliable messages between sessions", .timeLimit(.minutes(1)))
struct UnreliableMessageMemoryTests {
    @Test func everySealedDatagramArrivesOnceIntactAndCounted() async throws {
        try await withTestScope { scope in
            let (ada, bob, bobID, adaID) = try await scope.connectedPair(configure: MemoryNetwork().configure)
            for index in 0..<200 {
                try await ada.session.send(Array("d\(index)".utf8), to: [bobID], mode: .unreliable)
            }
            #expect(await bob.message(from: adaID, equalTo: "d199"))
            let received = bob.messages(from: adaID).map { String(decoding: $0, as: UTF8.self) }
            #expect(received == (0..<200).map { "d\($0)" })
            let counters = try #require(await bob.session.datagramCounters(for: adaID))
            #expect(counters.delivered == 200)
            #expect(counters.authFailures == 0 && counters.replayDropped == 0 && counters.malformed == 0)
            // Every payload taken from the events was counted into the receive budget too: nothing is owed.
            #expect(bob.session.undeliveredBytes == 0)
            #expect(bob.session.droppedDatagramsOverBudget == 0)
        }
    }

    @Test func tooLargeIsATypedErrorAndNothingIsSent() async throws {
        try await withTestScope { scope in
            let (ada, bob, bobID, _) = try await scope.connectedPair(configure: MemoryNetwork().configure)
            await #expect(
                throws: PeerSessionError.connection(.wire(.datagramTooLarge(limit: 1200, size: 1201)))
            ) {
                try await ada.session.send(Array(repeating: 0, count: 1201), to: [bobID], mode: .unreliable)
            }
            try await ada.session.send(Array(repeating: 7, count: 1200), to: [bobID], mode: .unreliable)
            let arrived = await bob.wait { event -> Int? in
                if case .received(let bytes, _) = event { return bytes.count }
                return nil
            }
            #expect(arrived == 1200)
            let counters = try #require(await bob.session.datagramCounters(for: ada.session.peerID))
            #expect(counters.delivered == 1, "the refused one was never sent")
        }
    }
}
