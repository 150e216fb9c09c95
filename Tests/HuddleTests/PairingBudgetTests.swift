import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import Synchronization
import Testing

@testable import Huddle

@Suite("Pairing budget and self-recognition", .tags(.real), .timeLimit(.minutes(2)))
struct PairingBudgetTests {
    /// Denied runs are failures: after the budget's number of them the responder pauses pairing, says so once,
    /// and refuses the next first contact before anyone is asked; the dialler hears why.
    @Test(.timeLimit(.minutes(2))) func failedPairingRunsPausePairingAndSaySo() async throws {
        try await withTestScope { scope in
            let probes = try await scope.sessions(["Ada", "Bob", "Cy"]) {
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

    /// The review's grinder: raw initiators that read the responder's nonce and walk away before revealing. On
    /// the build before the pairing budget every run got a nonce and nothing was counted, so Ada then paired
    /// normally; now the sixth run is refused, Bob says why, and Ada's first contact is refused too. (The 2 s
    /// per-source spacing is off here to keep the test short; the next test runs the real budget.)
    @Test(.timeLimit(.minutes(2))) func runsAbandonedAfterTheNonceAreCountedAndPausePairing() async throws {
        try await withTestScope { scope in
            let directory = InMemoryPeerDirectory()
            let probes = try await scope.sessions(["Ada", "Bob"], directory: directory) {
                $0.pairingBudget.interval = .zero
            }
            let (ada, bob) = (probes[0], probes[1])
            let address = try #require(await listeningAddress(of: bob.session, in: directory))
            var outcomes: [PairingGrinder.Outcome] = []
            while outcomes.count < 6 {
                let outcome = try await PairingGrinder.run(against: address, sessionType: bob.session.serviceType)
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
    /// Real connections to a running session, but the budget's clock is moved by hand: the count does not depend
    /// on how many tries a loaded machine manages in a span of real time.
    @Test(.timeLimit(.minutes(2))) func aGrinderGetsFiveNoncesThenNothingForTheWholePause() async throws {
        let base = ContinuousClock.now
        let elapsed = Mutex(Duration.zero)
        func advance(_ duration: Duration) { elapsed.withLock { $0 += duration } }
        try await withTestScope { scope in
            let directory = InMemoryPeerDirectory()
            let probes = try await scope.sessions(["Bob"], directory: directory) { configuration in
                configuration.pairingClock = { base + elapsed.withLock { $0 } }
            }
            let bob = probes[0]
            let address = try #require(await listeningAddress(of: bob.session, in: directory))
            let budget = PairingBudget.Configuration()
            func grind() async throws -> PairingGrinder.Outcome {
                try await PairingGrinder.run(against: address, sessionType: bob.session.serviceType)
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

    @Test func twoSessionsWithOneDeviceKeyConnectToEachOtherButNeverToThemselves() async throws {
        try await withTestScope { scope in
            let directory = InMemoryPeerDirectory()
            let identity = try DeviceIdentity.ephemeral()
            var configuration = PeerSessionConfiguration()
            configuration.listenHost = "127.0.0.1"
            var sessions: [PeerSession] = []
            for name in ["Desk", "Laptop"] {
                let session = try await PeerSession(
                    sessionID: "Chess",
                    displayName: name,
                    configuration: configuration,
                    directory: directory,
                    identity: identity,
                    trustStore: TrustStore()
                )
                scope.stop(session)
                try await session.start()
                sessions.append(session)
            }
            let desk = scope.adopt(SessionProbe(sessions[0]))
            let laptop = try #require(await desk.found(named: "Laptop"))
            #expect(laptop.deviceID == identity.deviceID)
            #expect(laptop.id != sessions[0].peerID)
            // The same device is its own pinned peer: no code, no prompt.
            try await sessions[0].connect(to: laptop.id, timeout: .seconds(45))
            #expect(await sessions[0].peers(in: .connected) == [laptop.id])
            #expect(await sessions[0].peers(in: .available).isEmpty)
            #expect(desk.events.allSatisfy { if case .connectionRequest = $0 { false } else { true } })
            // Desk advertised and browsed before Laptop started, so its own advert reached it before Laptop's: it
            // was handled, and ignored, by now.
            #expect(
                !desk.events.contains {
                    if case .peerFound(let info) = $0 { info.displayName == "Desk" } else { false }
                }
            )
        }
    }
}

@Suite("Availability", .tags(.real), .timeLimit(.minutes(2)))
struct AvailabilityTests {
    @Test func unavailableHidesTheSessionButKeepsItsConnections() async throws {
        try await withTestScope { scope in
            let probes = try await scope.sessions(["Ada", "Bob", "Cy"]) { $0.trustsOnFirstUse = true }
            let (ada, bob, cy) = (probes[0], probes[1], probes[2])
            let bobID = try #require(await ada.found(named: "Bob")).id
            let adaAtCy = try #require(await cy.found(named: "Ada")).id
            try await ada.session.connect(to: bobID)
            #expect(await ada.session.advertisedName() == "Ada")
            try await ada.session.setAvailable(false)
            #expect(await ada.session.isAvailable == false)
            #expect(await ada.session.advertisedName() == nil)
            #expect(await cy.state(adaAtCy, .unavailable))
            #expect(await ada.session.peers(in: .connected) == [bobID])
            try await ada.session.send(Array("still here".utf8), to: [bobID])
            // Ada's `connect` returns when Ada is connected; Bob may hear of it a moment later.
            let adaAtBob = try #require(
                await bob.wait { event -> PeerID? in
                    if case .stateChanged(let peer, .connected) = event { return peer }
                    return nil
                }
            )
            #expect(await bob.message(from: adaAtBob) == "still here")
            cy.clear()
            try await ada.session.setAvailable(true)
            #expect(await cy.state(adaAtCy, .available))
            #expect(await ada.session.isAvailable)
            #expect(await ada.session.advertisedName() == "Ada")
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
