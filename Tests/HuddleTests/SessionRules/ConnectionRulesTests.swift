import HuddleTransport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// The connection rules of ``PeerSessionStateMachine`` with a manual clock: no sockets, no sleeps.
@Suite("Session rules: connecting, deciding, the duplicate tie-break")
struct ConnectionRulesTests {
    typealias H = SessionRulesHarness
    let bob = PeerID(rawValue: "bob")

    @Test func aFoundPeerIsAvailableAndALostOneUnavailable() {
        var rules = H()
        #expect(rules.handle(.found(H.advert("bob"))) == ["emit peerFound bob", "emit stateChanged bob available"])
        #expect(rules.machine.peers(in: .available) == [bob])
        #expect(rules.handle(.found(H.advert("bob"))) == ["emit peerFound bob"])
        #expect(rules.handle(.lost(bob)) == ["emit stateChanged bob unavailable"])
        #expect(rules.machine.info(for: bob)?.state == .unavailable)
    }

    @Test func firstContactAsksTheUserAndPinsTheVerifiedDevice() {
        var rules = H()
        rules.handle(.found(H.advert("bob")))
        #expect(
            rules.handle(.dialStarted(1, peer: bob, timeout: .seconds(60))) == [
                "schedule connectDeadline(1, peer: bob) 60.0 seconds", "emit stateChanged bob connecting",
            ]
        )
        #expect(rules.machine.connections[1]?.phase == .dialling)
        rules.handle(.opened(1))
        #expect(rules.machine.connections[1]?.phase == .handshaking)
        rules.handle(.authenticated(1, H.highDevice))
        #expect(rules.handle(.prompted(1, H.prompt("bob", code: true))) == ["emit request #1 bob outgoing code:true"])
        #expect(rules.machine.connections[1]?.phase == .deciding(firstUse: false))
        #expect(rules.handle(.decide(.init(rawValue: 1), accept: true)) == ["write 1 decision true"])
        #expect(rules.handle(.decide(.init(rawValue: 1), accept: true)).isEmpty)
        #expect(
            rules.handle(.connected(1, H.outcome("bob", pairedWithCode: true))) == [
                "rememberTrust verified Bob", "rememberAddress 1 dialled", "startDatagrams 1",
                "write 1 resume 0 []", "openFlow bob 1", "openRoute 1 bob", "emit stateChanged bob connected",
                "finish 1 ok",
            ]
        )
        #expect(rules.machine.connections[1]?.phase == .connected)
        #expect(rules.machine.verifiedDevice(of: bob) == H.highDevice)
        #expect(rules.machine.connection(of: bob) == 1)
        #expect((try? rules.machine.connectPlan(to: bob, contextSize: 0)) == .alreadyConnected)
    }

    @Test func trustOnFirstUseAnswersThePromptItselfAndPinsAsTOFU() {
        var rules = H { $0.trustsOnFirstUse = true }
        rules.handle(.found(H.advert("bob")))
        rules.dialAndAuthenticate(1, "bob")
        #expect(rules.handle(.prompted(1, H.prompt("bob", code: true))) == ["write 1 decision true"])
        #expect(rules.machine.connections[1]?.acceptedOnFirstUse == true)
        #expect(rules.handle(.connected(1, H.outcome("bob"))).first == "rememberTrust tofu Bob")
    }

    /// Where a pinned peer was reached is kept for next time (`docs/design.md`, "Peers beyond the link"): the
    /// address dialled, or, when the peer dialled, its address with the port its advert names; without an advert
    /// the port it listens on is unknown and nothing is kept.
    @Test(arguments: [true, false])
    func whereAPeerWasReachedIsKeptWithThePortItListensOn(advertised: Bool) {
        var rules = H { $0.trustsOnFirstUse = true }
        if advertised { rules.handle(.found(H.advert("bob"))) }
        rules.acceptAndAuthenticate(1)
        rules.handle(.prompted(1, H.prompt("bob", code: true)))
        let actions = rules.handle(.connected(1, H.outcome("bob")))
        #expect(
            actions.filter { $0.hasPrefix("remember") } == ["rememberTrust tofu Bob"]
                + (advertised ? ["rememberAddress 1 4000"] : [])
        )
    }

    @Test func aDenyIsWrittenAndTheEndedRequestIsReported() {
        var rules = H()
        rules.acceptAndAuthenticate(1)
        #expect(rules.handle(.prompted(1, H.prompt("bob", code: true))) == ["emit request #1 bob incoming code:true"])
        #expect(
            rules.handle(.closed(1, .cancelled)) == [
                "forgetDatagrams 1", "emit requestEnded #1 \(PeerSessionError.cancelled)",
            ]
        )
        #expect(rules.machine.requests.isEmpty)
    }

    /// Only a dial of this side's own address names its own instance: refused saying so, to the dialler and here.
    @Test func aConnectionNamingOurOwnInstanceIsRefusedSayingWhy() {
        var rules = H()
        rules.acceptAndAuthenticate(1)
        #expect(
            rules.handle(.prompted(1, H.prompt("local", code: true))) == [
                "log warning refused a connection from this session itself (a dial reached its own address)",
                "write 1 close(\(PeerCloseReason.ownInstance))",
            ]
        )
        let error = PeerSessionError.connection(.wire(.closedByPeer(reason: .ownInstance)))
        #expect("\(error)".contains("this session itself: the address dialled is this device's own"), "\(error)")
    }

    @Test func anInstanceAnotherDeviceProvedIsRefusedAndReported() throws {
        var rules = H()
        try rules.pin(H.highDevice)
        rules.handle(.found(H.advert("bob")))
        rules.dialAndAuthenticate(1, "bob")
        rules.handle(.connected(1, H.outcome("bob")))
        rules.acceptAndAuthenticate(2, device: H.otherDevice)
        #expect(
            rules.handle(.prompted(2, H.prompt("bob", code: true))) == [
                "write 2 close(\(PeerCloseReason.instanceTaken))",
                "emit peerError bob \(PeerSessionError.instanceClaimed(bob, by: H.otherDevice))",
            ]
        )
        #expect(rules.machine.connection(of: bob) == 1)
    }

    @Test func aResponderOverTheConnectionLimitIsBusy() throws {
        var rules = H { $0.maximumPeers = 1 }
        try rules.pin(H.highDevice)
        try rules.pin(H.otherDevice, as: "Cy")
        rules.acceptAndAuthenticate(1)
        rules.handle(.prompted(1, H.prompt("bob", code: false)))
        rules.handle(.connected(1, H.outcome("bob")))
        rules.acceptAndAuthenticate(2, device: H.otherDevice)
        #expect(rules.handle(.prompted(2, H.prompt("cy", code: false))) == ["write 2 close(\(PeerCloseReason.busy))"])
    }

    /// Both sides dialled: the connection the lower side dialled survives on both, whatever finished first.
    @Test func theLowerSideKeepsItsOwnDialWhenBothDial() throws {
        var rules = H(device: H.lowDevice)
        try rules.pin(H.highDevice)
        rules.handle(.found(H.advert("bob")))
        rules.dialAndAuthenticate(1, "bob")
        rules.acceptAndAuthenticate(2)
        rules.handle(.prompted(2, H.prompt("bob", code: false)))
        #expect(rules.handle(.connected(1, H.outcome("bob"))).last == "finish 1 ok")
        #expect(rules.machine.connection(of: bob) == 1)
        #expect(rules.machine.connections[2]?.peer == nil)
    }

    /// The higher side, connected to Ann (the lower) on its own dial 1, while Ann's dial 2 has just authenticated.
    static func connectedToAnnWhoDialsAgain() throws -> H {
        var rules = H(device: H.highDevice)
        try rules.pin(H.lowDevice)
        rules.handle(.found(H.advert("ann", device: H.lowDevice, name: "Ann")))
        rules.handle(.dialStarted(1, peer: PeerID(rawValue: "ann"), timeout: .seconds(60)))
        rules.handle(.opened(1))
        rules.handle(.authenticated(1, H.lowDevice))
        rules.handle(.connected(1, H.outcome("ann")))
        rules.acceptAndAuthenticate(2, device: H.lowDevice)
        return rules
    }

    @Test func theHigherSideKeepsThePeersDialAndItsConnectWaitsForIt() throws {
        var rules = try Self.connectedToAnnWhoDialsAgain()
        // The peer's dial (2) wins: ours (1) is closed, and our connect now waits on 2, which is not decided.
        #expect(
            rules.handle(.prompted(2, H.prompt("ann", code: false))) == [
                "endTransfers ann -", "write 1 close(\(PeerCloseReason.duplicate))",
                "emit stateChanged ann connecting", "write 2 decision true",
            ]
        )
        #expect(rules.machine.connections[2]?.waiter == nil)
    }

    /// Messages on their way on a connection the tie-break replaced are still the peer's: its handler acknowledged
    /// them, so dropping them (as before) lost them. Their numbers keep a copy sent again on the survivor out.
    @Test func messagesOnAReplacedConnectionAreStillDelivered() throws {
        var rules = try Self.connectedToAnnWhoDialsAgain()
        let ann = PeerID(rawValue: "ann")
        #expect(rules.machine.deliverable(0, on: 1) == ann)
        rules.handle(.prompted(2, H.prompt("ann", code: false)))
        #expect(rules.machine.connections[1]?.peer == nil, "replaced")
        #expect(rules.machine.deliverable(1, on: 1) == ann)
        #expect(rules.machine.deliverable(1, on: 2) == nil, "the same message sent again on the survivor")
        #expect(rules.machine.deliverable(2, on: 2) == ann)
        #expect(rules.machine.deliverable(2, on: 1) == nil)
    }

    @Test func aDialRefusedAsDuplicateWaitsForTheSurvivor() throws {
        var rules = H(device: H.highDevice)
        try rules.pin(H.lowDevice)
        let ann = PeerID(rawValue: "ann")
        rules.handle(.found(H.advert("ann", device: H.lowDevice, name: "Ann")))
        rules.handle(.dialStarted(1, peer: ann, timeout: .seconds(60)))
        rules.handle(.opened(1))
        rules.acceptAndAuthenticate(2, device: H.lowDevice)
        let refused = PeerSessionError.connection(.wire(.closedByPeer(reason: .duplicate)))
        // The peer's connection has not named the peer yet, so the peer shows as available for a moment.
        #expect(rules.handle(.closed(1, refused)) == ["forgetDatagrams 1", "emit stateChanged ann available"])
        #expect(rules.machine.parkedWaiters == [1: ann])
        rules.handle(.prompted(2, H.prompt("ann", code: false)))
        #expect(
            rules.handle(.connected(2, H.outcome("ann"))).suffix(2) == [
                "emit stateChanged ann connected", "finish 1 ok",
            ]
        )
        #expect(rules.machine.parkedWaiters.isEmpty)
    }

    @Test func cancellingADialBeforeItsSocketOpensEndsIt() {
        var rules = H()
        rules.handle(.found(H.advert("bob")))
        rules.handle(.dialStarted(1, peer: bob, timeout: .seconds(60)))
        #expect(
            rules.handle(.cancelDial(1)) == [
                "forgetDatagrams 1", "finish 1 \(PeerSessionError.cancelled)", "emit stateChanged bob available",
            ]
        )
        #expect(rules.handle(.opened(1)) == ["closeChannel 1"])
    }

    @Test func cancellingAnOpenDialClosesItWithCancelled() {
        var rules = H()
        rules.handle(.found(H.advert("bob")))
        rules.dialAndAuthenticate(1, "bob")
        #expect(
            rules.handle(.cancelConnect(bob)) == [
                "finish 1 \(PeerSessionError.cancelled)", "write 1 close(\(PeerCloseReason.cancelled))",
            ]
        )
        #expect(rules.handle(.closed(1, .cancelled)) == ["forgetDatagrams 1", "emit stateChanged bob available"])
    }

    @Test func aDialThatTimesOutIsClosedAndItsConnectThrows() {
        var rules = H()
        rules.handle(.found(H.advert("bob")))
        rules.dialAndAuthenticate(1, "bob")
        #expect(
            rules.handle(.timer(.connectDeadline(1, peer: bob))) == [
                "finish 1 \(PeerSessionError.connectTimedOut(bob))", "write 1 close(\(PeerCloseReason.timedOut))",
            ]
        )
    }

    @Test func aDeadlineAfterTheCallEndedChangesNothing() throws {
        var rules = H(device: H.lowDevice)
        try rules.pin(H.highDevice)
        rules.handle(.found(H.advert("bob")))
        rules.dialAndAuthenticate(1, "bob")
        #expect(rules.handle(.connected(1, H.outcome("bob"))).last == "finish 1 ok")
        #expect(rules.handle(.timer(.connectDeadline(1, peer: bob))) == [])
        #expect(rules.machine.connection(of: bob) == 1)

        var cancelled = H()
        cancelled.handle(.found(H.advert("bob")))
        cancelled.dialAndAuthenticate(1, "bob")
        cancelled.handle(.cancelConnect(bob))
        #expect(cancelled.handle(.timer(.connectDeadline(1, peer: bob))) == [])
    }

    @Test func aParkedConnectTimesOutAtItsDeadline() throws {
        var rules = H(device: H.highDevice)
        try rules.pin(H.lowDevice)
        let ann = PeerID(rawValue: "ann")
        rules.handle(.found(H.advert("ann", device: H.lowDevice, name: "Ann")))
        rules.handle(.dialStarted(1, peer: ann, timeout: .seconds(5)))
        rules.handle(.opened(1))
        rules.acceptAndAuthenticate(2, device: H.lowDevice)
        rules.handle(.closed(1, .connection(.wire(.closedByPeer(reason: .duplicate)))))
        #expect(rules.machine.parkedWaiters == [1: ann])
        // The peer's connection never gets through its decision: the call that waits on it gives up.
        #expect(
            rules.handle(.timer(.connectDeadline(1, peer: ann))) == [
                "finish 1 \(PeerSessionError.connectTimedOut(ann))"
            ]
        )
        #expect(rules.machine.parkedWaiters.isEmpty)
        #expect(rules.machine.connections[2] != nil)
    }

    @Test func connectPlansAFirstContactDialThroughThePairingBudget() throws {
        var rules = H()
        #expect(throws: PeerSessionError.unknownPeer(bob)) { try rules.machine.connectPlan(to: bob, contextSize: 0) }
        rules.handle(.found(H.advert("bob")))
        let plan = try rules.machine.connectPlan(to: bob, contextSize: 0)
        let source = PairingGate.source(device: H.highDevice, address: H.address)
        #expect(plan == .dial(H.address, expected: nil, pairing: source))
        #expect(throws: PeerSessionError.messageTooLarge(limit: 1024, size: 2000)) {
            try rules.machine.connectPlan(to: bob, contextSize: 2000)
        }
        try rules.pin(H.highDevice)
        let pinned = try rules.machine.connectPlan(to: bob, contextSize: 0)
        #expect(pinned == .dial(H.address, expected: H.highDevice, pairing: nil))
    }

    @Test func theLowerSideDialsAFoundPeerOnceWhenAskedTo() {
        var low = H(device: H.lowDevice) { $0.connectsToFoundPeers = true }
        #expect(low.handle(.found(H.advert("bob"))).last == "connect bob 120.0 seconds found")
        #expect(low.handle(.found(H.advert("bob"))) == ["emit peerFound bob"])
        // The higher side of the pair waits to be dialled.
        var high = H(device: H.highDevice) { $0.connectsToFoundPeers = true }
        let found = high.handle(.found(H.advert("ann", device: H.lowDevice)))
        #expect(found.contains("emit peerFound ann"))
        #expect(found.allSatisfy { !$0.hasPrefix("connect") })
    }

    @Test func aFailedAutomaticDialIsReportedWithWhy() {
        var low = H(device: H.lowDevice) { $0.connectsToFoundPeers = true }
        low.handle(.found(H.advert("bob")))
        let denied = PeerSessionError.connection(.wire(.pairingRejected(reason: .denied)))
        #expect(
            low.handle(.connectEnded(bob, reason: .found, failure: denied)) == [
                "emit peerError bob \(PeerSessionError.autoConnectFailed(denied))"
            ]
        )
        #expect(low.handle(.connectEnded(bob, reason: .found, failure: nil)).isEmpty)
        // Not dialled again for being found again: once per instance.
        #expect(low.handle(.found(H.advert("bob"))) == ["emit peerFound bob"])
    }

    /// Two hosts of one host name: the peer's advert was first resolved through the host name the other lost,
    /// so it named this side's own address, and the automatic dial reached itself. Found again at its real
    /// address, the peer is dialled there, whether the new advert came after the failed dial or during it.
    @Test func aFoundPeerIsDialledAgainAtAnotherAddress() throws {
        let own = PeerSessionError.connection(.wire(.closedByPeer(reason: .ownInstance)))
        var moved = H.advert("bob")
        moved.addresses = [try SocketAddress(ipAddress: "127.0.0.2", port: 4000)]
        var low = H(device: H.lowDevice) { $0.connectsToFoundPeers = true }
        #expect(low.handle(.found(H.advert("bob"))).last == "connect bob 120.0 seconds found")
        low.handle(.connectEnded(bob, reason: .found, failure: own))
        #expect(low.handle(.found(H.advert("bob"))) == ["emit peerFound bob"], "not again at the same address")
        #expect(low.handle(.found(moved)).last == "connect bob 120.0 seconds found")
        #expect(low.handle(.found(moved)) == ["emit peerFound bob"])

        var during = H(device: H.lowDevice) { $0.connectsToFoundPeers = true }
        during.handle(.found(H.advert("bob")))
        during.handle(.dialStarted(1, peer: bob, timeout: .seconds(120)))
        #expect(during.handle(.found(moved)).allSatisfy { !$0.hasPrefix("connect") }, "one dial at a time")
        during.handle(.closed(1, own))
        #expect(
            during.handle(.connectEnded(bob, reason: .found, failure: own)) == [
                "emit peerError bob \(PeerSessionError.autoConnectFailed(own))", "connect bob 120.0 seconds found",
            ]
        )
    }

    @Test func aBlockedDeviceIsRefusedAtOnce() throws {
        var rules = H()
        try rules.pin(H.highDevice)
        rules.handle(.found(H.advert("bob")))
        rules.dialAndAuthenticate(1, "bob")
        rules.handle(.connected(1, H.outcome("bob")))
        try rules.trust.set(.blocked, for: H.highDevice, displayName: "Bob", version: 1)
        #expect(rules.handle(.trustChanged) == ["closeFlow bob 1", "write 1 close(\(PeerCloseReason.refused))"])
        #expect(rules.machine.connections[1]?.phase == .closing(wasConnected: true))
        #expect(rules.handle(.trustChanged).isEmpty)
    }
}
