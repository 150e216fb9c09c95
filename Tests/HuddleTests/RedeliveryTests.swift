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
@Suite("Messages across lost connections", .timeLimit(.minutes(2)))
struct RedeliveryTests {
    func send(_ texts: [String], from probe: SessionProbe, to peer: PeerID) async throws {
        for text in texts { try await probe.session.send(Array(text.utf8), to: [peer]) }
    }

    static func undelivered(_ event: PeerSessionEvent) -> [String]? {
        guard case .undelivered(let messages, _) = event else { return nil }
        return messages.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The next messages `probe` reports undelivered.
    func undelivered(_ probe: SessionProbe) async -> [String]? {
        await probe.wait(Self.undelivered)
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

    @Test func messagesAreReportedUndeliveredWhenThePeerDoesNotComeBack() async throws {
        try await withTestScope { scope in
            let (ada, bob, bobID, _) = try await scope.connectedPair {
                Self.quickTimeout(&$0)
                $0.reconnectsDroppedPeers = false
                $0.redeliveryWindow = .seconds(2)
            }
            // Ada hears nothing from Bob from here on (the last PING's answer came at most 0.3 s before): she drops him
            // after the 1.2 s timeout, then keeps the messages for the 2 s window before reporting them. A busy machine
            // only makes each step later.
            let silenced = ContinuousClock.now
            try await stopReads(of: bob, from: ada)
            try await send(["lost 1", "lost 2"], from: ada, to: bobID)
            #expect(await ada.state(bobID, .disconnected))
            #expect(await undelivered(ada) == ["lost 1", "lost 2"])
            #expect(silenced.duration(to: .now) >= .seconds(2))
            // Kept when the connection was lost, reported only after the window: the report comes after the
            // disconnect in Ada's events.
            let events = ada.events
            let disconnected = try #require(
                events.firstIndex { if case .stateChanged(bobID, .disconnected) = $0 { true } else { false } }
            )
            let reported = try #require(events.firstIndex { Self.undelivered($0) != nil })
            #expect(disconnected < reported)
        }
    }

    @Test func stoppingReportsWhatIsStillKept() async throws {
        try await withTestScope { scope in
            let (ada, bob, bobID, _) = try await scope.connectedPair {
                Self.quickTimeout(&$0)
                $0.reconnectsDroppedPeers = false
            }
            try await stopReads(of: bob, from: ada)
            try await send(["kept"], from: ada, to: bobID)
            #expect(await ada.state(bobID, .disconnected))
            // Kept, not reported, when the connection was lost (that report would have come with the disconnect);
            // the 60 s window is still open when Ada stops, and stopping reports it.
            #expect(!reportedUndelivered(ada))
            await ada.session.stop()
            #expect(await undelivered(ada) == ["kept"])
        }
    }
}

/// The pure parts: numbering and dropping what was handed on.
@Suite("Message numbering")
struct MessageRouteTests {
    @Test func theCounterAdmitsEachNumberOnceAndSkipsGaps() {
        let counter = DeliveryCounter()
        #expect(counter.admit(0))
        #expect(counter.admit(1))
        #expect(!counter.admit(1))
        #expect(!counter.admit(0))
        #expect(counter.admit(10))
        #expect(!counter.admit(9))
        #expect(counter.admit(11))
    }

    @Test func theRouteNumbersFromResumeAndGoesDirectOnlyWhenTheInboxIsEmpty() {
        let route = MessageRoute()
        route.resume(at: 5)
        guard case .inbox(5) = route.arrived() else {
            Issue.record("expected the inbox for 5")
            return
        }
        let counter = DeliveryCounter()
        #expect(counter.admit(5))
        let peer = PeerID(rawValue: "peer")
        route.open(to: peer, delivery: counter)
        guard case .inbox(6) = route.arrived() else {
            Issue.record("one still in the inbox: 6 follows it")
            return
        }
        route.leftInbox()
        route.leftInbox()
        #expect(counter.admit(6))
        guard case .direct(peer) = route.arrived() else {
            Issue.record("expected 7 to go direct")
            return
        }

        // A new connection from the same peer sends 6…8 again: 6 and 7 are dropped, 8 is new.
        let next = MessageRoute()
        next.open(to: peer, delivery: counter)
        next.resume(at: 6)
        guard case .duplicate = next.arrived(), case .duplicate = next.arrived() else {
            Issue.record("6 and 7 were handed on before")
            return
        }
        guard case .direct(peer) = next.arrived() else {
            Issue.record("8 is new")
            return
        }
    }
}
