import Foundation
import HuddleTestSupport
import Testing

@testable import Huddle

@Suite("An offer nobody answers is withdrawn after the decision timeout", .timeLimit(.minutes(1)))
struct TransferDecisionTimeoutTests {
    /// With a 300 ms decision timeout (on a clock the test moves), a sender whose file offer is never answered is told so, and the receiver's
    /// pending offer is withdrawn (accepting it afterwards fails). The setting used to be read by nothing: a
    /// sender waited until the connection ended.
    @Test func anUnansweredOfferIsWithdrawnOnBothSides() async throws {
        try await withTestScope { scope in
            let (network, clock) = (MemoryNetwork(), ManualSessionClock())
            let (ada, bob, bobID, _) = try await scope.connectedPair {
                network.configure(&$0)
                clock.configure(&$0)
                $0.transfers.decisionTimeout = .milliseconds(300)
            }
            let url = try scope.directory().appendingPathComponent("unanswered.bin")
            try Data(repeating: 1, count: 1000).write(to: url)
            let sending = Task { try await ada.session.sendFile(at: url, to: bobID) }
            let offered = try #require(await bob.offer())
            // Ada's decision timer is the one timer on the clock: not due a nanosecond early, due at 300 ms.
            #expect(await clock.waitForSleepers(1))
            clock.advance(by: .milliseconds(300) - .nanoseconds(1))
            #expect(clock.sleeperCount == 1)
            clock.advance(by: .nanoseconds(1))
            let outcome = await result(of: sending, within: .seconds(20))
            guard case .failure(let error as PeerSessionError)? = outcome else {
                Issue.record("the unanswered send did not fail: \(String(describing: outcome))")
                return
            }
            #expect(error == .transferNotAnswered(after: .milliseconds(300)))
            let withdrawn = await bob.wait { event -> PeerSessionError? in
                if case .transferFailed(offered.id, _, let reason) = event { return reason }
                return nil
            }
            #expect(withdrawn == .transferFailed("the offer was withdrawn: no answer within 300 ms"))
            await #expect(throws: PeerSessionError.transferFailed("no such offer")) {
                try await bob.session.acceptTransfer(offered, into: try scope.directory())
            }
        }
    }
}
