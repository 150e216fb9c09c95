import Foundation
import HuddleTestSupport
import HuddleTransport
import NIOCore
import Testing

@testable import Huddle

extension PeerSession {
    /// The channel of the connection to `peer` (tests cut it or stop its reads).
    func channel(to peer: PeerID) -> (any Channel)? {
        peers[peer]?.connection.flatMap { connections[$0]?.channel }
    }
}

/// Reliable messages across a lost connection, on loopback with two real sessions: sent again on the next
/// connection and dropped by the receiver when it already has them, or reported undelivered.
@Suite("Messages across lost connections")
struct RedeliveryTests {
    func send(_ texts: [String], from probe: SessionProbe, to peer: PeerID) async throws {
        for text in texts { try await probe.session.send(Array(text.utf8), to: [peer]) }
    }

    func undelivered(_ probe: SessionProbe, seconds: Double = 10) async -> [String]? {
        await probe.wait(seconds: seconds) { event in
            guard case .undelivered(let messages, _) = event else { return nil }
            return messages.map { String(decoding: $0, as: UTF8.self) }
        }
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
        guard await one.state(twoID, .disconnected, seconds: 20), await two.state(oneID, .disconnected, seconds: 20)
        else { return false }
        let oneBack = await one.state(twoID, .connected, seconds: 20)
        let twoBack = await two.state(oneID, .connected, seconds: 20)
        return oneBack && twoBack
    }

    static func quickTimeout(_ configuration: inout PeerSessionConfiguration) {
        configuration.connection.pingAfter = .milliseconds(300)
        configuration.connection.disconnectTimeout = .milliseconds(1200)
    }

    @Test func messagesLostWithTheConnectionArriveOnceAfterTheReconnect() async throws {
        let (ada, bob, bobID, adaID) = try await connectedPair(configure: Self.quickTimeout)

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
            bob.messages(from: adaID).map { String(decoding: $0, as: UTF8.self) } == ["one", "two", "three", "four"]
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
        #expect(await undelivered(ada, seconds: 0.2) == nil)
        await ada.session.stop()
        await bob.session.stop()
    }

    @Test func messagesAreReportedUndeliveredWhenThePeerDoesNotComeBack() async throws {
        let (ada, bob, bobID, _) = try await connectedPair {
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
        #expect(await undelivered(ada, seconds: 0.01) == nil)
        #expect(await undelivered(ada) == ["lost 1", "lost 2"])
        #expect(silenced.duration(to: .now) >= .seconds(2))
        await ada.session.stop()
        await bob.session.stop()
    }

    @Test func stoppingReportsWhatIsStillKept() async throws {
        let (ada, bob, bobID, _) = try await connectedPair {
            Self.quickTimeout(&$0)
            $0.reconnectsDroppedPeers = false
        }
        try await stopReads(of: bob, from: ada)
        try await send(["kept"], from: ada, to: bobID)
        #expect(await ada.state(bobID, .disconnected))
        #expect(await undelivered(ada, seconds: 0.2) == nil)
        await ada.session.stop()
        #expect(await undelivered(ada) == ["kept"])
        await bob.session.stop()
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
