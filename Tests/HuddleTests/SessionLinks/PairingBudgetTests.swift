import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import Synchronization
import Testing

@testable import Huddle

/// A grinder's runs against a real session, over a `MemoryNetwork` (real TLS and the session's pipeline; no socket).
@Suite("Pairing budget", .timeLimit(.minutes(1)))
struct PairingBudgetTests {
    let network = MemoryNetwork()

    /// The review's grinder: raw initiators that read the responder's nonce and walk away before revealing. On
    /// the build before the pairing budget every run got a nonce and nothing was counted, so Ada then paired
    /// normally; now the sixth run is refused, Bob says why, and Ada's first contact is refused too. (The 2 s
    /// per-source spacing is off here to keep the test short; the next test runs the real budget.)
    @Test func runsAbandonedAfterTheNonceAreCountedAndPausePairing() async throws {
        try await withTestScope { scope in
            let directory = InMemoryPeerDirectory()
            let probes = try await scope.sessions(["Ada", "Bob"], directory: directory) {
                network.configure(&$0)
                $0.pairingBudget.interval = .zero
            }
            let (ada, bob) = (probes[0], probes[1])
            let address = try #require(await listeningAddress(of: bob.session, in: directory))
            var outcomes: [PairingGrinder.Outcome] = []
            while outcomes.count < 6 {
                let outcome = try await PairingGrinder.run(
                    against: address,
                    in: network,
                    sessionType: bob.session.serviceType
                )
                // Bob may not have seen the last run end yet: it is still in flight, and this one is turned away
                // before any nonce. Try again as a grinder would.
                if outcome == .refused(.pairingBusy) {
                    // (Bob tells a grinder nothing of the earlier run's end to wait for; it paces itself.)
                    try await Task.sleep(for: .milliseconds(20))
                    continue
                }
                outcomes.append(outcome)
            }
            #expect(outcomes == Array(repeating: .nonce, count: 5) + [.refused(.pairingPaused)])
            let pause = try #require(
                await bob.wait { event -> PairingBudget.Pause? in
                    if case .pairingPaused(let pause) = event { return pause }
                    return nil
                }
            )
            #expect(pause.failures == 5)
            #expect(pause.source == "127.0.0.1")
            #expect(bob.events.allSatisfy { if case .connectionRequest = $0 { false } else { true } })
            let bobID = try #require(await ada.found(named: "Bob")).id
            await #expect(throws: PeerSessionError.pairingRateLimited) {
                try await ada.session.connect(to: bobID, timeout: .seconds(20))
            }
        }
    }

    /// The grinder of the issue: a raw initiator starts a run whenever Bob lets it (a fresh key each time) and
    /// walks away after the nonce. With the default budget (2 s spacing, 5 failures pause pairing for 60 s) it
    /// gets five nonces, then nothing for the whole pause however often it tries, then five more and the next
    /// pause: at most six nonces in any minute (five, and one more in flight for a simultaneous dial), so a man in
    /// the middle's chance to match one code while it is on screen is at most 6 × 10⁻⁶.
    ///
    /// Connections to a running session, and the budget's clock is moved by hand: the count does not depend
    /// on how many tries a loaded machine manages in a span of real time.
    @Test func aGrinderGetsFiveNoncesThenNothingForTheWholePause() async throws {
        let clock = ManualSessionClock()
        func advance(_ duration: Duration) { clock.advance(by: duration) }
        try await withTestScope { scope in
            let directory = InMemoryPeerDirectory()
            let probes = try await scope.sessions(["Bob"], directory: directory) {
                network.configure(&$0)
                clock.configure(&$0)
            }
            let bob = probes[0]
            let address = try #require(await listeningAddress(of: bob.session, in: directory))
            let budget = PairingBudget.Configuration()
            func grind() async throws -> PairingGrinder.Outcome {
                try await PairingGrinder.run(against: address, in: network, sessionType: bob.session.serviceType)
            }
            // Until pairing pauses: a run every interval; a run still in flight (its end not yet seen by Bob) is
            // retried at the same budget time.
            func grindUntilPaused() async throws -> Int {
                var nonces = 0
                for _ in 0..<1000 {
                    let outcome = try await grind()
                    if outcome == .refused(.pairingPaused) { break }
                    if outcome == .nonce {
                        nonces += 1
                        advance(budget.interval)
                    }
                }
                return nonces
            }

            #expect(try await grindUntilPaused() == budget.maximumFailures)
            let pause = try #require(
                await bob.wait { event -> PairingBudget.Pause? in
                    if case .pairingPaused(let pause) = event { return pause }
                    return nil
                }
            )
            #expect(pause.failures == budget.maximumFailures)

            // The whole pause, a try every second of budget time: every one refused.
            var duringPause: [PairingGrinder.Outcome] = []
            for _ in 0..<Int(budget.pause.components.seconds) - budget.maximumFailures * 2 - 1 {
                duringPause.append(try await grind())
                advance(.seconds(1))
            }
            #expect(duringPause.allSatisfy { $0 == .refused(.pairingPaused) }, "\(duringPause)")

            // After the pause the budget starts afresh: five more runs at the spacing, then the next pause.
            advance(budget.pause)
            #expect(try await grindUntilPaused() == budget.maximumFailures)
            #expect(try await grind() == .refused(.pairingPaused))
        }
    }

}

/// Where `session` listens, from its advert in `directory`.
func listeningAddress(of session: PeerSession, in directory: InMemoryPeerDirectory) async -> SocketAddress? {
    for await event in directory.browse(serviceType: session.serviceType) {
        if case .found(let advert) = event, advert.peer == session.peerID { return advert.addresses.first }
    }
    return nil
}
