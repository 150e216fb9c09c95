import HuddleTransport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// The reconnect schedule, the redelivery outbox, the peer table limit and stopping, with a manual clock and a
/// seeded generator: no sockets, no sleeps.
@Suite("Session rules: reconnecting, redelivery, the peer table, stopping")
struct ReconnectAndRedeliveryRulesTests {
    typealias H = SessionRulesHarness
    let bob = PeerID(rawValue: "bob")
    let dropped = PeerSessionError.connection(.wire(.closedByPeer(reason: .protocolError)))

    /// A pinned Bob connected on connection `id`, with `unacknowledged` left when it drops.
    func connected(_ rules: inout H, id: ConnectionID = 1) throws {
        try rules.pin(H.highDevice)
        rules.handle(.found(H.advert("bob")))
        rules.dialAndAuthenticate(id, "bob")
        rules.handle(.connected(id, H.outcome("bob")))
    }

    static func delay(of line: String?) -> Double? {
        guard let line, line.hasPrefix("schedule reconnect"), let seconds = line.split(separator: " ").dropLast().last
        else { return nil }
        return Double(seconds)
    }

    @Test func aDroppedPinnedPeerIsDialledAgainWithGrowingJitteredDelays() throws {
        var rules = H()
        try connected(&rules)
        let actions = rules.handle(.closed(1, dropped))
        #expect(
            Array(actions.prefix(6)) == [
                "forgetDatagrams 1", "closeFlow bob 1", "endTransfers bob -", "emit stateChanged bob disconnected",
                "emit peerError bob \(dropped)", "emit stateChanged bob available",
            ]
        )
        var delays = [try #require(Self.delay(of: actions.last))]
        for attempt in 0..<12 {
            #expect(
                rules.handle(.timer(.reconnect(bob, attempt: attempt))) == [
                    "connect bob 30.0 seconds reconnect(attempt: \(attempt))"
                ]
            )
            let next = rules.handle(.connectEnded(bob, reason: .reconnect(attempt: attempt), failure: dropped))
            if attempt < 11 { delays.append(try #require(Self.delay(of: next.last))) } else { #expect(next.isEmpty) }
        }
        // 0.5 s doubling to 30 s, each within ±20 %.
        let bases = (0..<12).map { min(30.0, 0.5 * Double(1 << min($0, 6))) }
        for (delay, base) in zip(delays, bases) { #expect(delay >= base * 0.8 && delay <= base * 1.2) }
        #expect(Set(delays.prefix(6).map { $0 }).count == 6)
        #expect(rules.machine.reconnecting == [bob])
    }

    @Test func aReconnectThatSucceedsStopsTheSchedule() throws {
        var rules = H()
        try connected(&rules)
        rules.handle(.closed(1, dropped))
        rules.dialAndAuthenticate(2, "bob")
        rules.handle(.connected(2, H.outcome("bob")))
        #expect(rules.handle(.connectEnded(bob, reason: .reconnect(attempt: 0), failure: nil)).isEmpty)
        #expect(rules.machine.reconnecting.isEmpty)
        #expect(rules.handle(.timer(.reconnect(bob, attempt: 0))).isEmpty)
    }

    @Test func theHigherSideAndAGoodbyeScheduleNoReconnect() throws {
        var high = H(device: H.highDevice)
        try high.pin(H.lowDevice)
        high.handle(.found(H.advert("ann", device: H.lowDevice)))
        high.dialAndAuthenticate(1, "ann", device: H.lowDevice)
        high.handle(.connected(1, H.outcome("ann")))
        #expect(high.handle(.closed(1, dropped)).allSatisfy { !$0.hasPrefix("schedule") })
        var rules = H()
        try connected(&rules)
        #expect(rules.handle(.disconnect(bob)) == ["closeFlow bob 1", "write 1 close(\(PeerCloseReason.goodbye))"])
        #expect(rules.handle(.closed(1, dropped)).allSatisfy { !$0.hasPrefix("schedule reconnect") })
        #expect(rules.machine.reconnecting.isEmpty)
        // The side that receives the goodbye: its connection ends without an error, and it does not dial back.
        var receiver = H()
        try connected(&receiver)
        let ended = receiver.handle(.closed(1, nil))
        #expect(ended.contains("emit stateChanged bob disconnected"))
        #expect(ended.allSatisfy { !$0.hasPrefix("schedule reconnect") })
        #expect(receiver.machine.reconnecting.isEmpty && receiver.machine.droppedDevices.isEmpty)
    }

    @Test func unacknowledgedMessagesGoFirstOnTheNextConnection() throws {
        var rules = H()
        try connected(&rules)
        let kept = ["one", "two"].map { ByteBuffer(string: $0) }
        rules.handle(.unacknowledged(1, messages: kept, next: 7))
        #expect(rules.handle(.unsent(ByteBuffer(string: "three"), to: bob, connection: 1)).isEmpty)
        let actions = rules.handle(.closed(1, dropped))
        #expect(actions.contains("schedule redeliveryWindow(bob, generation: 1) 60.0 seconds"))
        rules.dialAndAuthenticate(2, "bob")
        // "one" and "two" were 5 and 6; "three" never had a number and follows them.
        #expect(
            rules.handle(.connected(2, H.outcome("bob"))).contains("write 2 resume 5 [\"one\", \"two\", \"three\"]")
        )
        #expect(rules.handle(.timer(.redeliveryWindow(bob, generation: 1))).isEmpty)
    }

    @Test func whatWaitsLongerThanTheWindowIsReportedUndelivered() throws {
        var rules = H()
        try connected(&rules)
        rules.handle(.unacknowledged(1, messages: [ByteBuffer(string: "one")], next: 1))
        // Kept when the connection is lost, not reported: the report waits for the window.
        let lost = rules.handle(.closed(1, dropped))
        #expect(lost.contains("schedule redeliveryWindow(bob, generation: 1) 60.0 seconds"))
        #expect(lost.allSatisfy { !$0.hasPrefix("emit undelivered") })
        #expect(rules.handle(.unsent(ByteBuffer(string: "late"), to: bob, connection: nil)).isEmpty)
        #expect(
            rules.handle(.timer(.redeliveryWindow(bob, generation: 1))) == ["emit undelivered bob [\"one\", \"late\"]"]
        )
        #expect(
            rules.handle(.unsent(ByteBuffer(string: "later"), to: bob, connection: nil)) == [
                "emit undelivered bob [\"later\"]"
            ]
        )
    }

    @Test func aFullPeerTableForgetsAGonePeerOnlyAfterTheRedeliveryWindow() throws {
        var rules = H { $0.maximumKnownPeers = 1 }
        try connected(&rules)
        rules.handle(.closed(1, nil))  // a goodbye
        rules.handle(.lost(bob))
        #expect(
            rules.handle(.found(H.advert("cy", device: H.otherDevice))) == [
                "log notice ignored an advert: the peer table is full"
            ]
        )
        #expect(rules.machine.ignoredAdverts == 1)
        rules.advance(.seconds(60))
        #expect(rules.handle(.found(H.advert("cy", device: H.otherDevice))).first == "emit peerFound cy")
        #expect(rules.machine.info(for: bob) == nil)
        // A pinned device always finds room.
        #expect(rules.handle(.found(H.advert("bob2"))).first == "emit peerFound bob2")
    }

    @Test func anAdvertNeverChangesAVerifiedPeersKey() throws {
        var rules = H()
        try connected(&rules)
        #expect(
            rules.handle(.found(H.advert("bob", device: H.otherDevice))) == [
                "log notice ignored an advert naming another key for a verified peer"
            ]
        )
        #expect(rules.machine.verifiedDevice(of: bob) == H.highDevice)
    }

    @Test func stoppingSaysGoodbyeFailsWaitersAndReportsOutboxes() throws {
        var rules = H()
        try connected(&rules)
        rules.handle(.unacknowledged(1, messages: [ByteBuffer(string: "kept")], next: 1))
        rules.handle(.closed(1, dropped))
        rules.dialAndAuthenticate(2, "bob")
        #expect(
            rules.handle(.stop) == [
                "write 2 close(\(PeerCloseReason.goodbye))", "finish 2 \(PeerSessionError.stopped)",
                "emit undelivered bob [\"kept\"]",
            ]
        )
        #expect(rules.handle(.accepted(3)) == ["closeChannel 3"])
        #expect(
            rules.handle(.dialStarted(4, peer: bob, timeout: .seconds(60))) == ["finish 4 \(PeerSessionError.stopped)"]
        )
        #expect(throws: PeerSessionError.stopped) { try rules.machine.connectPlan(to: bob, contextSize: 0) }
        #expect(rules.handle(.timer(.reconnect(bob, attempt: 0))).isEmpty)
    }
}
