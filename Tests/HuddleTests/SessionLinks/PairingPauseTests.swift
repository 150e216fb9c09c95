import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import Synchronization
import Testing

@testable import Huddle

@Suite("Failed pairing runs pause pairing", .timeLimit(.minutes(1)))
struct PairingPauseTests {
    /// Denied runs are failures: after the budget's number of them the responder pauses pairing, says so once,
    /// and refuses the next first contact before anyone is asked; the dialler hears why.
    @Test func failedPairingRunsPausePairingAndSaySo() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let probes = try await scope.sessions(["Ada", "Bob", "Cy"]) {
                network.configure(&$0)
                $0.pairingBudget.maximumFailures = 2
                $0.pairingBudget.interval = .zero
            }
            let (ada, bob, cy) = (probes[0], probes[1], probes[2])
            let bobID = try #require(await ada.found(named: "Bob")).id
            for _ in 0..<2 {
                bob.clear()
                let attempt = Task { try await ada.session.connect(to: bobID, timeout: .seconds(20)) }
                let request = try #require(await bob.request(direction: .incoming))
                await bob.session.deny(request)
                await #expect(throws: PeerSessionError.connection(.wire(.pairingRejected(reason: .denied)))) {
                    try await attempt.value
                }
            }
            let pause = try #require(
                await bob.wait { event -> PairingBudget.Pause? in
                    if case .pairingPaused(let pause) = event { return pause }
                    return nil
                }
            )
            #expect(
                pause.description == "2 pairing attempts from 127.0.0.1 were abandoned: pausing new pairings for 60 s"
            )
            bob.clear()
            // Cy has failed nothing: Bob's budget refuses it, before anyone is asked.
            let bobAtCy = try #require(await cy.found(named: "Bob")).id
            await #expect(throws: PeerSessionError.pairingRateLimited) {
                try await cy.session.connect(to: bobAtCy, timeout: .seconds(20))
            }
            #expect(bob.events.allSatisfy { if case .connectionRequest = $0 { false } else { true } })
            // Ada's own budget counted the two denials too: she does not even dial.
            await #expect(throws: PeerSessionError.pairingRateLimited) {
                try await ada.session.connect(to: bobID, timeout: .seconds(20))
            }
        }
    }
}
