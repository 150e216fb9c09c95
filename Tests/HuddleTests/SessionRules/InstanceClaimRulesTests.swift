import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// Who keeps an instance two devices claim (`docs/threat-model.md`, "A peer is its device"): the paired device,
/// never a device that copied its instance token and waits at a question.
@Suite("Session rules: an instance two devices claim")
struct InstanceClaimRulesTests {
    typealias H = SessionRulesHarness
    let bob = PeerID(rawValue: "bob")

    /// Mallory (not paired) copied Bob's instance token and waits at the pairing question; then Bob, paired,
    /// connects: Mallory's connection is closed and her question withdrawn, and Bob's connection goes on.
    @Test func thePairedOwnerClosesAClaimantWaitingAtItsQuestion() throws {
        var rules = H()
        try rules.pin(H.highDevice)
        rules.acceptAndAuthenticate(1, device: H.otherDevice)
        #expect(rules.handle(.prompted(1, H.prompt("bob", code: true))) == ["emit request #1 bob incoming code:true"])
        rules.acceptAndAuthenticate(2, device: H.highDevice)
        let claimed = PeerSessionError.instanceClaimed(bob, by: H.otherDevice)
        #expect(
            rules.handle(.prompted(2, H.prompt("bob", code: false))) == [
                "emit requestEnded #1 \(claimed)",
                "write 1 close(\(PeerCloseReason.instanceTaken))",
                "emit peerError bob \(claimed)",
                "write 2 decision true",
            ]
        )
        #expect(rules.machine.requests.isEmpty)
        #expect(rules.machine.connections[1]?.peer == nil)
        #expect(rules.handle(.connected(2, H.outcome("bob"))).contains("emit stateChanged bob connected"))
        #expect(rules.machine.connection(of: bob) == 2)
        #expect(rules.machine.verifiedDevice(of: bob) == H.highDevice)
        #expect(
            rules.handle(.closed(1, .connection(.wire(.closedByPeer(reason: .instanceTaken))))) == ["forgetDatagrams 1"]
        )
    }

    /// The instance was proved by Bob earlier in this session: a claimant waiting at its question gives way to
    /// him too, even if Bob is not paired (he was accepted once).
    @Test func theDeviceThatProvedTheInstanceBeforeClosesAClaimant() throws {
        var rules = H()
        rules.acceptAndAuthenticate(1, device: H.highDevice)
        rules.handle(.prompted(1, H.prompt("bob", code: true)))
        rules.handle(.decide(.init(rawValue: 1), accept: true))
        rules.handle(.connected(1, H.outcome("bob", pairedWithCode: true)))
        rules.handle(.closed(1, nil))
        rules.acceptAndAuthenticate(2, device: H.otherDevice)
        // Bob proved the instance: Mallory is refused at once.
        #expect(
            rules.handle(.prompted(2, H.prompt("bob", code: true))).first
                == "write 2 close(\(PeerCloseReason.instanceTaken))"
        )
    }

    /// Two devices neither of which is paired: the first claim stands and the second is refused, as before.
    @Test func betweenTwoUnpairedDevicesTheFirstClaimStands() {
        var rules = H()
        rules.acceptAndAuthenticate(1, device: H.otherDevice)
        rules.handle(.prompted(1, H.prompt("bob", code: true)))
        rules.acceptAndAuthenticate(2, device: H.highDevice)
        #expect(
            rules.handle(.prompted(2, H.prompt("bob", code: true))) == [
                "write 2 close(\(PeerCloseReason.instanceTaken))",
                "emit peerError bob \(PeerSessionError.instanceClaimed(bob, by: H.highDevice))",
            ]
        )
        #expect(rules.machine.requests.count == 1)
    }

    /// A paired device that connects under a fresh instance token each time keeps one record, not one per token.
    @Test func aPairedDeviceCyclingInstanceTokensKeepsOneRecord() throws {
        var rules = H()
        try rules.pin(H.highDevice)
        for cycle in 0..<50 {
            let id = ConnectionID(rawValue: cycle + 1)
            rules.acceptAndAuthenticate(id, device: H.highDevice)
            rules.handle(.prompted(id, H.prompt("bob-\(cycle)", code: false)))
            rules.handle(.connected(id, H.outcome("bob-\(cycle)")))
            rules.handle(.closed(id, nil))
        }
        #expect(rules.machine.peers.count == 1)
        #expect(rules.machine.peers.keys.first == PeerID(rawValue: "bob-49"))
    }

    /// An earlier instance still advertised, or owed messages, is not forgotten.
    @Test func anEarlierInstanceThatIsStillFoundStays() throws {
        var rules = H()
        try rules.pin(H.highDevice)
        rules.handle(.found(H.advert("bob-0")))
        rules.acceptAndAuthenticate(1, device: H.highDevice)
        rules.handle(.prompted(1, H.prompt("bob-0", code: false)))
        rules.handle(.connected(1, H.outcome("bob-0")))
        rules.handle(.closed(1, nil))
        rules.acceptAndAuthenticate(2, device: H.highDevice)
        rules.handle(.prompted(2, H.prompt("bob-1", code: false)))
        #expect(Set(rules.machine.peers.keys) == [PeerID(rawValue: "bob-0"), PeerID(rawValue: "bob-1")])
    }
}
