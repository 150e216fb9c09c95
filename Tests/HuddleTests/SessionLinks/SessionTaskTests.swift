import Foundation
import HuddleTestSupport
import HuddleTransport
import Testing

@testable import Huddle

/// A session's background tasks (dials, redelivery windows, reconnect timers) leave its table when they end: a
/// session that connects again and again for days must not keep one per connection (found by the allocation
/// benchmark, `Benchmarks/Allocations`: a connection cycle left allocations behind).
@Suite("Background tasks of a long-lived session", .timeLimit(.minutes(1)))
struct SessionTaskTests {
    func taskCount(_ probe: SessionProbe) async -> Int {
        await probe.session.tasks.count
    }

    @Test func connectionCyclesLeaveNoTasksBehind() async throws {
        try await withTestScope { scope in
            let (network, clock) = (MemoryNetwork(), ManualSessionClock())
            let (ada, bob, bobID, adaID) = try await scope.connectedPair {
                network.configure(&$0)
                clock.configure(&$0)
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
            // The redelivery windows pass (a timer whose task has not reached its sleep yet finds its deadline
            // passed and returns at once).
            clock.advance(by: .milliseconds(50))
            // What is left: each session's inbox reader (its first task), and nothing else. Every other task must end, and take itself out of the table as it does.
            for probe in [ada, bob] {
                for (number, task) in await probe.session.tasks where number.rawValue != 0 {
                    let ended = await result(of: Task<Void, any Error> { await task.value })
                    #expect(ended != nil, "\(number) of \(probe.session.displayName) did not end")
                }
            }
            #expect(await taskCount(ada) == 1)
            #expect(await taskCount(bob) == 1)
        }
    }
}
