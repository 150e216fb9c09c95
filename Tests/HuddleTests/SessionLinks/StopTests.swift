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
            let network = MemoryNetwork()
            let (ada, bob, bobID, _) = try await scope.connectedPair(configure: network.configure)
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
