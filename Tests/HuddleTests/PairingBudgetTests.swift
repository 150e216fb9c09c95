import Huddle
import HuddleTransport
import HuddleWire
import Testing

@Suite("Pairing budget and self-recognition")
struct PairingBudgetTests {
    @Test func unfinishedPairingRunsAreRateLimited() async throws {
        let probes = try await makeSessions(["Ada", "Bob"]) { $0.maximumFailedPairings = 2 }
        let (ada, bob) = (probes[0], probes[1])
        let bobID = try #require(await ada.found(named: "Bob")).id
        for _ in 0..<2 {
            bob.clear()
            let attempt = Task { try await ada.session.connect(to: bobID, timeout: .seconds(10)) }
            let request = try #require(await bob.request(direction: .incoming))
            await bob.session.deny(request)
            await #expect(throws: PeerSessionError.connection(.wire(.pairingRejected(reason: .denied)))) {
                try await attempt.value
            }
        }
        bob.clear()
        // The third run within the window is refused before anyone is asked.
        let refusal = await #expect(throws: PeerSessionError.self) {
            try await ada.session.connect(to: bobID, timeout: .seconds(10))
        }
        #expect(
            refusal == .connection(.wire(.closedByPeer(reason: .refused)))
                || refusal == .connection(.wire(.pairingRejected(reason: .refused)))
        )
        let limited = await bob.wait { event -> Bool? in
            if case .peerError(_, .pairingRateLimited) = event { return true }
            return nil
        }
        #expect(limited == true)
        #expect(bob.events.allSatisfy { if case .connectionRequest = $0 { false } else { true } })
        for probe in probes { await probe.session.stop() }
    }

    @Test func twoSessionsWithOneDeviceKeyConnectToEachOtherButNeverToThemselves() async throws {
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
            try await session.start()
            sessions.append(session)
        }
        let desk = SessionProbe(sessions[0])
        let laptop = try #require(await desk.found(named: "Laptop"))
        #expect(laptop.deviceID == identity.deviceID)
        #expect(laptop.id != sessions[0].peerID)
        // The same device is its own pinned peer: no code, no prompt.
        try await sessions[0].connect(to: laptop.id, timeout: .seconds(10))
        #expect(await sessions[0].peers(in: .connected) == [laptop.id])
        #expect(await sessions[0].peers(in: .available).isEmpty)
        #expect(desk.events.allSatisfy { if case .connectionRequest = $0 { false } else { true } })
        #expect(await desk.found(named: "Desk", seconds: 0.2) == nil)
        for session in sessions { await session.stop() }
    }
}

@Suite("Availability")
struct AvailabilityTests {
    @Test func unavailableHidesTheSessionButKeepsItsConnections() async throws {
        let probes = try await makeSessions(["Ada", "Bob", "Cy"]) { $0.trustsOnFirstUse = true }
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
        for probe in probes { await probe.session.stop() }
    }
}
