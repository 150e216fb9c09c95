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
}
