import Foundation
import HuddleTestSupport
import HuddleTransport
import Testing

@testable import Huddle

/// Reliable messages across a lost connection, between two real sessions on a ``MemoryNetwork`` whose links a test
/// breaks one way or cuts: sent again on the next connection and dropped by the receiver when it already has them,
/// or reported undelivered. The session clock is moved by hand, so the reconnect comes when the test says.
@Suite("Messages across lost connections", .timeLimit(.minutes(1)))
struct RedeliveryTests {
    let network = MemoryNetwork()
    let clock = ManualSessionClock()

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

    /// Cuts the link of `one` and `two`, and waits until both sides are connected again: the timers the loss
    /// starts (each side's redelivery window, the lower side's reconnect timer at 0.5 s ± 20 %) are asleep, then
    /// the clock moves past the reconnect but not the windows.
    func cutAndReconnect(_ one: SessionProbe, _ two: SessionProbe) async throws -> Bool {
        let (oneID, twoID) = (one.session.peerID, two.session.peerID)
        let asleep = clock.sleeperCount
        try await #require(network.link(between: one.session, and: two.session)).cut()
        guard await one.state(twoID, .disconnected), await two.state(oneID, .disconnected) else { return false }
        guard await clock.waitForSleepers(asleep + 3) else { return false }
        clock.advance(by: .milliseconds(600))
        let oneBack = await one.state(twoID, .connected)
        let twoBack = await two.state(oneID, .connected)
        return oneBack && twoBack
    }

    @Test func messagesLostWithTheConnectionArriveOnceAfterTheReconnect() async throws {
        try await withTestScope { scope in
            let (ada, bob, bobID, adaID) = try await scope.connectedPair {
                network.configure(&$0)
                clock.configure(&$0)
            }

            // Bob reads and acknowledges, but Ada never hears the ACKs: when the connection is lost, Ada sends the
            // three again on the next one, and Bob, who has them, drops them.
            try #require(network.link(between: ada.session, and: bob.session)).loseWrites(of: bob.session)
            ada.clear()
            bob.clear()
            try await send(["one", "two", "three"], from: ada, to: bobID)
            #expect(await bob.message(from: adaID, equalTo: "three"))
            #expect(try await cutAndReconnect(ada, bob))
            try await send(["four"], from: ada, to: bobID)
            #expect(await bob.message(from: adaID, equalTo: "four"))
            #expect(
                bob.messages(from: adaID).map { String(decoding: $0, as: UTF8.self) } == [
                    "one", "two", "three", "four",
                ]
            )

            // Now what Ada sends is lost: the two lines never reach Bob on this connection; they arrive on the next
            // one, before what Ada sends after it.
            try #require(network.link(between: ada.session, and: bob.session)).loseWrites(of: ada.session)
            ada.clear()
            bob.clear()
            try await send(["five", "six"], from: ada, to: bobID)
            #expect(try await cutAndReconnect(ada, bob))
            try await send(["seven"], from: ada, to: bobID)
            #expect(await bob.message(from: adaID, equalTo: "seven"))
            #expect(bob.messages(from: adaID).map { String(decoding: $0, as: UTF8.self) } == ["five", "six", "seven"])
            // Kept across the lost connection and sent again, never reported undelivered: a report would have come
            // when the connection was lost, before the reconnect awaited above.
            #expect(!reportedUndelivered(ada))
        }
    }

    @Test func messagesReportedUndeliveredAreTheApplicationsBytesWithoutTheirHeader() async throws {
        try await withTestScope { scope in
            let (ada, bob, bobID, _) = try await scope.connectedPair {
                network.configure(&$0)
                clock.configure(&$0)
            }
            // Version 3: every message on the stream carries its 2-byte header, which the report leaves off.
            #expect(await ada.session.linkStatistics(for: bobID)?.protocolVersion == 3)
            try #require(network.link(between: ada.session, and: bob.session)).loseWrites(of: ada.session)
            ada.clear()
            try await ada.session.send(Array("gone-1".utf8), to: [bobID])
            try await ada.session.send(Array("gone-2".utf8), to: [bobID], mode: .reliableUnordered, channel: 4)
            // Bob goes for good: the link is cut, and nothing answers Ada's reconnects.
            try await #require(network.link(between: ada.session, and: bob.session)).cut()
            #expect(await ada.state(bobID, .disconnected))
            await bob.stop()
            // The redelivery window (60 s) passes: the two are reported as Ada's app sent them.
            clock.advance(by: .seconds(61))
            #expect(await ada.wait(seconds: 10) { Self.undelivered($0) } == ["gone-1", "gone-2"])
        }
    }
}
