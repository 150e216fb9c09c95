import Foundation
import HuddleTestSupport
import HuddleTransport
import NIOCore
import Testing

@testable import Huddle

extension PeerSession {
    /// The channel of the connection to `peer` (tests cut it or stop its reads).
    func channel(to peer: PeerID) -> (any Channel)? {
        machine.connection(of: peer).flatMap { io[$0]?.channel }
    }
}

/// Reliable messages across a lost connection, on loopback with two real sessions: sent again on the next
/// connection and dropped by the receiver when it already has them, or reported undelivered.
@Suite("Messages across lost connections", .tags(.real), .timeLimit(.minutes(2)))
struct RedeliveryTests {
    func send(_ texts: [String], from probe: SessionProbe, to peer: PeerID) async throws {
        for text in texts { try await probe.session.send(Array(text.utf8), to: [peer]) }
    }

    static func undelivered(_ event: PeerSessionEvent) -> [String]? {
        guard case .undelivered(let messages, _) = event else { return nil }
        return messages.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether `probe` has reported messages undelivered so far (a look at its record, no wait).
    func reportedUndelivered(_ probe: SessionProbe) -> Bool {
        probe.events.contains { Self.undelivered($0) != nil }
    }

    /// Stops `reader`'s reads from `sender`: it neither reads what `sender` sends nor acknowledges it, and after the
    /// disconnect timeout says `sender` is unresponsive and closes, like a link that went dead one way.
    func stopReads(of reader: SessionProbe, from sender: SessionProbe) async throws {
        let channel = try #require(await reader.session.channel(to: sender.session.peerID))
        try await channel.setOption(.autoRead, value: false).get()
    }

    /// Both sides connected again, after the connection of `one` and `two` was lost.
    func reconnected(_ one: SessionProbe, _ two: SessionProbe) async -> Bool {
        let (oneID, twoID) = (one.session.peerID, two.session.peerID)
        guard await one.state(twoID, .disconnected), await two.state(oneID, .disconnected) else { return false }
        let oneBack = await one.state(twoID, .connected)
        let twoBack = await two.state(oneID, .connected)
        return oneBack && twoBack
    }

    static func quickTimeout(_ configuration: inout PeerSessionConfiguration) {
        configuration.connection.pingAfter = .milliseconds(300)
        configuration.connection.disconnectTimeout = .milliseconds(1200)
    }

    @Test func messagesLostWithTheConnectionArriveOnceAfterTheReconnect() async throws {
        try await withTestScope { scope in
            let (ada, bob, bobID, adaID) = try await scope.connectedPair(configure: Self.quickTimeout)

            // Bob reads and acknowledges, but Ada no longer reads and never hears the ACKs: when the connection is
            // lost, Ada sends the three again on the next one, and Bob, who has them, drops them.
            try await stopReads(of: ada, from: bob)
            ada.clear()
            bob.clear()
            try await send(["one", "two", "three"], from: ada, to: bobID)
            #expect(await bob.message(from: adaID, equalTo: "three"))
            #expect(await reconnected(ada, bob))
            try await send(["four"], from: ada, to: bobID)
            #expect(await bob.message(from: adaID, equalTo: "four"))
            #expect(
                bob.messages(from: adaID).map { String(decoding: $0, as: UTF8.self) } == [
                    "one", "two", "three", "four",
                ]
            )

            // Now Bob stops reading: the two lines never reach him on this connection; they arrive on the next one,
            // before what Ada sends after it.
            try await stopReads(of: bob, from: ada)
            ada.clear()
            bob.clear()
            try await send(["five", "six"], from: ada, to: bobID)
            #expect(await reconnected(ada, bob))
            try await send(["seven"], from: ada, to: bobID)
            #expect(await bob.message(from: adaID, equalTo: "seven"))
            #expect(bob.messages(from: adaID).map { String(decoding: $0, as: UTF8.self) } == ["five", "six", "seven"])
            // Kept across the lost connection and sent again, never reported undelivered: a report would have come
            // when the connection was lost, before the reconnect awaited above.
            #expect(!reportedUndelivered(ada))
        }
    }
}
