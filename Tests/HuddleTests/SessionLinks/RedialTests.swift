import Foundation
import HuddleTestSupport
import HuddleWire
import Testing

@testable import Huddle

/// A peer that dials again while this side still holds its earlier connection (a goodbye or a close not yet
/// processed, or a drop only the dialler has noticed) is the same peer starting over: the new connection wins.
@Suite("Dialling again over a connection not yet closed", .timeLimit(.minutes(2)))
struct RedialTests {
    /// Disconnect and connect again at once (every other time without waiting for the disconnect), many times:
    /// some redials may reach the other side before the old connection's goodbye does. Every connect must succeed
    /// (a redial refused as a duplicate used to wait for its whole timeout; `test_huddle_cycles.py` meets that
    /// race between two test hosts, and the tie-break itself is tested below).
    @Test func disconnectAndConnectAgainAtOnceAlwaysConnects() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let (ada, bob, bobID, adaID) = try await scope.connectedPair(configure: network.configure)
            for cycle in 0..<100 {
                await ada.session.disconnect(bobID)
                if cycle % 2 == 0 {
                    _ = await ada.wait { event -> Bool? in
                        if case .stateChanged(bobID, .disconnected) = event { return true }
                        return nil
                    }
                }
                ada.clear()
                do {
                    try await ada.session.connect(to: bobID, timeout: .seconds(45))
                } catch {
                    Issue.record("cycle \(cycle): \(error)")
                    break
                }
            }
            // A message each way: both sides are bound to one working connection. An earlier connection that
            // closes after this belongs to no peer any more, so its end changes nothing.
            try await ada.session.send(Array("after".utf8), to: [bobID])
            #expect(await bob.message(from: adaID) == "after")
            try await bob.session.send(Array("back".utf8), to: [adaID])
            #expect(await ada.message(from: bobID) == "back")
            #expect(await ada.session.peers(in: .connected) == [bobID])
            #expect(await bob.session.peers(in: .connected) == [adaID])
        }
    }

    static let low = try! DeviceID(bytes: Array(repeating: 1, count: 32))
    static let high = try! DeviceID(bytes: Array(repeating: 2, count: 32))

    /// Dialled twice from the same side, the newer connection wins when it comes from the same device, and never
    /// when another device claims the instance (or the device is not known yet).
    @Test(arguments: [PeerRole.initiator, .responder])
    func aSecondDialFromTheSameSideWinsOnlyFromTheSameDevice(role: PeerRole) {
        for mine in [Self.low, Self.high] {
            let me = (device: mine, instance: "me")
            #expect(
                PeerSessionStateMachine.keepsNew(
                    role,
                    from: Self.high,
                    over: role,
                    from: Self.high,
                    mine: me,
                    theirs: "x"
                )
            )
            #expect(
                !PeerSessionStateMachine.keepsNew(
                    role,
                    from: Self.high,
                    over: role,
                    from: Self.low,
                    mine: me,
                    theirs: "x"
                )
            )
            #expect(
                !PeerSessionStateMachine.keepsNew(role, from: nil, over: role, from: Self.high, mine: me, theirs: "x")
            )
        }
    }

    /// Dialled from both sides, the connection dialled by the lower (device ID, instance) wins, on both sides.
    @Test func simultaneousDialsKeepTheConnectionOfTheLowerSide() {
        typealias Side = (device: DeviceID, instance: String)
        let cases: [(mine: Side, theirs: Side, new: PeerRole, keeps: Bool, why: String)] = [
            ((Self.low, "a"), (Self.high, "b"), .initiator, true, "the lower side keeps its own dial"),
            ((Self.low, "a"), (Self.high, "b"), .responder, false, "and refuses the higher side's"),
            ((Self.high, "b"), (Self.low, "a"), .responder, true, "the higher side keeps the lower side's dial"),
            ((Self.high, "b"), (Self.low, "a"), .initiator, false, "and gives up its own"),
            ((Self.low, "a"), (Self.low, "b"), .initiator, true, "one device, two instances: the lower instance"),
            ((Self.low, "b"), (Self.low, "a"), .responder, true, "and the higher instance keeps that one too"),
        ]
        for test in cases {
            let old: PeerRole = test.new == .initiator ? .responder : .initiator
            let kept = PeerSessionStateMachine.keepsNew(
                test.new,
                from: test.theirs.device,
                over: old,
                from: test.theirs.device,
                mine: test.mine,
                theirs: test.theirs.instance
            )
            #expect(kept == test.keeps, "\(test.why)")
        }
    }
}
