import HuddleTransport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// Both sides dialled, and this side's `connect` returned on its own dial before the peer's dial won the
/// tie-break: what was sent on the replaced connection still arrives.
@Suite("Session rules: a connection replaced by the tie-break")
struct DuplicateRaceRulesTests {
    typealias H = SessionRulesHarness
    let ann = PeerID(rawValue: "ann")

    /// The higher side (ours) dialled Ann and its `connect` returned on connection 1; then Ann's own dial (2)
    /// arrived and, hers being the lower side, won the tie-break: 1 is being closed as a duplicate.
    func replacedAfterConnect() throws -> H {
        var rules = H(device: H.highDevice)
        try rules.pin(H.lowDevice)
        rules.handle(.found(H.advert("ann", device: H.lowDevice, name: "Ann")))
        rules.handle(.dialStarted(1, peer: ann, timeout: .seconds(60)))
        rules.handle(.opened(1))
        rules.handle(.authenticated(1, H.lowDevice))
        #expect(rules.handle(.connected(1, H.outcome("ann"))).last == "finish 1 ok")
        rules.acceptAndAuthenticate(2, device: H.lowDevice)
        #expect(
            rules.handle(.prompted(2, H.prompt("ann", code: false))).contains(
                "write 1 close(\(PeerCloseReason.duplicate))"
            )
        )
        return rules
    }

    @Test func messagesSentOnAConnectionTheTieBreakReplacesGoOnTheSurvivor() throws {
        var rules = try replacedAfterConnect()
        rules.handle(.unacknowledged(1, messages: [ByteBuffer(string: "hello")], next: 1))
        #expect(
            rules.handle(.closed(1, nil)) == [
                "forgetDatagrams 1", "schedule redeliveryWindow(ann, generation: 1) 60.0 seconds",
            ]
        )
        let actions = rules.handle(.connected(2, H.outcome("ann")))
        #expect(actions.contains("write 2 resume 0 [\"hello\"]"))
        #expect(!actions.contains { $0.hasPrefix("emit undelivered") })
    }

    @Test func aSurvivorAcceptedBeforeTheReplacedConnectionEndedWaitsForItAndNumbersAboveIt() throws {
        var rules = try replacedAfterConnect()
        // Both sides accept the survivor before the replaced connection's end is known: it waits.
        #expect(rules.handle(.connected(2, H.outcome("ann"))).isEmpty)
        // The replaced connection used numbers 0…4; 3 and 4 ("d", "e") were not acknowledged.
        rules.handle(.unacknowledged(1, messages: ["d", "e"].map { ByteBuffer(string: $0) }, next: 5))
        let actions = rules.handle(.closed(1, nil))
        #expect(actions.contains("write 2 resume 3 [\"d\", \"e\"]"))
        #expect(actions.last == "emit stateChanged ann connected")
        #expect(!actions.contains { $0.hasPrefix("emit undelivered") })
        #expect(rules.machine.connection(of: ann) == 2)
    }

    /// No window in which `send` finds Ann not connected: the replaced connection keeps taking messages until the
    /// survivor is connected; what it refuses after it ended goes in the survivor's RESUME.
    @Test func sendsGoToTheReplacedConnectionUntilTheSurvivorIsConnected() throws {
        var rules = try replacedAfterConnect()
        #expect(rules.machine.peers[ann]?.flowConnection == 1)
        rules.handle(.unacknowledged(1, messages: [], next: 0))
        #expect(rules.handle(.closed(1, nil)).allSatisfy { !$0.hasPrefix("closeFlow") })
        #expect(rules.machine.peers[ann]?.flowConnection == 1)
        // A send wrote to the replaced connection after it closed: refused, it waits for the survivor.
        #expect(rules.handle(.unsent(ByteBuffer(string: "late"), to: ann, connection: nil)).isEmpty)
        let actions = rules.handle(.connected(2, H.outcome("ann")))
        #expect(actions.contains("write 2 resume 0 [\"late\"]"))
        #expect(actions.contains("openFlow ann 2"))
        #expect(rules.machine.peers[ann]?.flowConnection == 2)
    }

    /// The survivor failed before it was connected: the replaced connection's channel is taken from `send` too.
    @Test func aSurvivorThatFailsClosesTheReplacedConnectionsFlow() throws {
        var rules = try replacedAfterConnect()
        rules.handle(.unacknowledged(1, messages: [], next: 0))
        rules.handle(.closed(1, nil))
        let actions = rules.handle(.closed(2, .connection(.connectionLost)))
        #expect(actions.contains("closeFlow ann 1"))
        #expect(rules.machine.peers[ann]?.flowConnection == nil)
    }

    /// The other side of the race: Ann closes our connected dial as a duplicate before her own dial's HELLO is
    /// here. `send` still writes to it; what it refuses waits for her survivor's RESUME.
    @Test func aConnectionThePeerClosedAsADuplicateTakesSendsUntilItsSurvivorComes() throws {
        var rules = H(device: H.highDevice)
        try rules.pin(H.lowDevice)
        rules.handle(.found(H.advert("ann", device: H.lowDevice, name: "Ann")))
        rules.dialAndAuthenticate(1, "ann", device: H.lowDevice)
        rules.handle(.connected(1, H.outcome("ann")))
        rules.handle(.unacknowledged(1, messages: [], next: 0))
        let duplicate = PeerSessionError.connection(.wire(.closedByPeer(reason: .duplicate)))
        let ended = rules.handle(.closed(1, duplicate))
        #expect(ended.contains("schedule survivorDeadline(ann, connection: 1) 10.0 seconds"))
        #expect(!ended.contains { $0.hasPrefix("closeFlow") })
        #expect(rules.handle(.unsent(ByteBuffer(string: "meanwhile"), to: ann, connection: nil)).isEmpty)
        rules.acceptAndAuthenticate(2, device: H.lowDevice)
        rules.handle(.prompted(2, H.prompt("ann", code: false)))
        let actions = rules.handle(.connected(2, H.outcome("ann")))
        #expect(actions.contains("write 2 resume 0 [\"meanwhile\"]"))
        #expect(actions.contains("openFlow ann 2"))
        // The deadline of the first connection changes nothing now.
        #expect(rules.handle(.timer(.survivorDeadline(ann, connection: 1))).isEmpty)
    }

    /// No survivor came: at the deadline `send` finds Ann not connected again.
    @Test func withoutASurvivorTheFlowClosesAtTheDeadline() throws {
        var rules = H(device: H.highDevice)
        try rules.pin(H.lowDevice)
        rules.dialAndAuthenticate(1, "ann", device: H.lowDevice)
        rules.handle(.connected(1, H.outcome("ann")))
        rules.handle(.unacknowledged(1, messages: [], next: 0))
        rules.handle(.closed(1, .connection(.wire(.closedByPeer(reason: .duplicate)))))
        #expect(rules.handle(.timer(.survivorDeadline(ann, connection: 1))) == ["closeFlow ann 1"])
        #expect(rules.machine.peers[ann]?.flowConnection == nil)
    }

    /// A write the replaced connection refused after the survivor's RESUME went out goes on the survivor.
    @Test func aLateRefusalGoesOnTheSurvivor() throws {
        var rules = try replacedAfterConnect()
        rules.handle(.unacknowledged(1, messages: [], next: 0))
        rules.handle(.closed(1, nil))
        rules.handle(.connected(2, H.outcome("ann")))
        #expect(rules.handle(.unsent(ByteBuffer(string: "late"), to: ann, connection: nil)) == ["write 2 message late"])
    }
}
