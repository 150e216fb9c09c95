import Foundation
import Huddle
import HuddleTestSupport
import Testing

@Suite("Stopping a session ends what waits on it", .timeLimit(.minutes(1)))
struct StopTests {
    /// A sender whose offer is still unanswered when its session stops is told so at once. It used to wait for
    /// ever: `stop()` takes the connections out of its table first, so their endings never ended the transfers.
    @Test func aSenderWaitingForAnAnswerIsToldTheSessionStopped() async throws {
        try await withTestScope { scope in
            let (ada, bob, bobID, _) = try await scope.connectedPair()
            let url = try scope.directory().appendingPathComponent("offer.bin")
            try Data(repeating: 7, count: 4096).write(to: url)
            let sending = Task { try await ada.session.sendFile(at: url, to: bobID) }
            _ = try #require(await bob.offer())
            await ada.session.stop()
            let outcome = await result(of: sending, within: .seconds(20))
            guard case .failure(let error as PeerSessionError)? = outcome else {
                Issue.record("sendFile did not fail when its session stopped: \(String(describing: outcome))")
                return
            }
            #expect(error == .stopped)
        }
    }
}

@Suite("Cancelling the task ends what it waits for", .timeLimit(.minutes(1)))
struct TaskCancellationTests {
    /// A `connect` waiting for the other side's decision ends with `.cancelled` when its task is cancelled, and
    /// the other side's request ends too. It used to wait for the decision or its own timeout.
    @Test func cancellingAConnectGivesUpTheAttempt() async throws {
        try await withTestScope { scope in
            let probes = try await scope.sessions(["Ada", "Bob"])
            let (ada, bob) = (probes[0], probes[1])
            let bobID = try #require(await ada.found(named: "Bob")).id
            let connecting = Task { try await ada.session.connect(to: bobID, timeout: .seconds(45)) }
            let asked = try #require(await bob.request(direction: .incoming))
            connecting.cancel()
            let outcome = await result(of: connecting, within: .seconds(20))
            guard case .failure(let error as PeerSessionError)? = outcome else {
                Issue.record("the cancelled connect did not fail: \(String(describing: outcome))")
                return
            }
            #expect(error == .cancelled)
            let ended = await bob.wait { event -> Bool? in
                if case .connectionRequestEnded(asked.id, _) = event { return true }
                return nil
            }
            #expect(ended == true)
            #expect(await ada.session.peers(in: .connected).isEmpty)
        }
    }

    /// A `sendFile` whose task is cancelled while its offer waits ends with `.cancelled`, and the receiver's
    /// offer is withdrawn. It used to ignore the cancellation.
    @Test func cancellingASendWithdrawsTheOffer() async throws {
        try await withTestScope { scope in
            let (ada, bob, bobID, _) = try await scope.connectedPair()
            let url = try scope.directory().appendingPathComponent("cancelled.bin")
            try Data(repeating: 3, count: 4096).write(to: url)
            let sending = Task { try await ada.session.sendFile(at: url, to: bobID) }
            let offered = try #require(await bob.offer())
            sending.cancel()
            let outcome = await result(of: sending, within: .seconds(20))
            guard case .failure(let error as PeerSessionError)? = outcome else {
                Issue.record("the cancelled send did not fail: \(String(describing: outcome))")
                return
            }
            #expect(error == .cancelled)
            let withdrawn = await bob.wait { event -> PeerSessionError? in
                if case .transferFailed(offered.id, _, let reason) = event { return reason }
                return nil
            }
            #expect(withdrawn == .transferFailed("the offer was withdrawn: cancelled by the sender"))
        }
    }
}
