import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import Synchronization
import Testing

@testable import Huddle

@Suite("Two sessions of one device", .timeLimit(.minutes(1)))
struct SelfRecognitionTests {
    @Test func twoSessionsWithOneDeviceKeyConnectToEachOtherButNeverToThemselves() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let directory = InMemoryPeerDirectory()
            let identity = try DeviceIdentity.ephemeral()
            var configuration = PeerSessionConfiguration()
            configuration.listenHost = "127.0.0.1"
            network.configure(&configuration)
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

@Suite("Availability", .timeLimit(.minutes(1)))
struct AvailabilityTests {
    @Test func unavailableHidesTheSessionButKeepsItsConnections() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let probes = try await scope.sessions(["Ada", "Bob", "Cy"]) {
                network.configure(&$0)
                $0.trustsOnFirstUse = true
            }
            let (ada, bob, cy) = (probes[0], probes[1], probes[2])
            let bobID = try #require(await ada.found(named: "Bob")).id
            let adaAtCy = try #require(await cy.found(named: "Ada")).id
            try await ada.session.connect(to: bobID)
            #expect(await ada.session.advertisedName() == "Ada")
            #expect(await ada.session.findableName() == "Ada")
            try await ada.session.setAvailable(false)
            #expect(await ada.session.isAvailable == false)
            #expect(await ada.session.advertisedName() == nil)
            // Unadvertised, it is found under no name: a program says its display name, without waiting.
            #expect(await ada.session.findableName(within: .seconds(3600)) == "Ada")
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
