import Foundation
import HuddleTestSupport
import HuddleTransport
import Testing

@testable import Huddle

/// A session's background tasks (dials, redelivery windows, reconnect timers) leave its table when they end: a
/// session that connects again and again for days must not keep one per connection (found by the allocation
/// benchmark, `Benchmarks/Allocations`: a connection cycle left allocations behind).
@Suite("Background tasks of a long-lived session")
struct SessionTaskTests {
    func taskCount(_ probe: SessionProbe) async -> Int {
        await probe.session.tasks.count
    }

    @Test func connectionCyclesLeaveNoTasksBehind() async throws {
        let (ada, bob, bobID, adaID) = try await connectedPair {
            $0.redeliveryWindow = .milliseconds(50)
        }
        for _ in 0..<6 {
            ada.clear()
            bob.clear()
            await ada.session.disconnect(bobID)
            #expect(await bob.state(adaID, .disconnected))
            #expect(await ada.state(bobID, .disconnected))
            try await ada.session.connect(to: bobID)
            #expect(await bob.state(adaID, .connected))
        }
        // What is left: each session's inbox reader, and nothing else once the short windows have passed.
        let deadline = ContinuousClock.now + .seconds(10)
        while await taskCount(ada) + taskCount(bob) > 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await taskCount(ada) == 1)
        #expect(await taskCount(bob) == 1)
        await ada.session.stop()
        await bob.session.stop()
    }
}
