import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// `huddle trust block` and `huddle trust forget` run in a process of their own: a running session sees what they
/// wrote to `trust.json` without being restarted.
@Suite("Trust changes made by another process reach a running session", .tags(.real), .timeLimit(.minutes(1)))
struct TrustChangeSessionTests {
    /// Two sessions on loopback, each with a trust store on disk in a data directory of its own (the directories
    /// returned, in order), stopped and removed when `scope` ends. `reloads` hears each time a session reloaded
    /// its trust store after another process changed it.
    static func sessions(
        in scope: TestScope,
        trustOnFirstUse: Bool,
        reloads: EventRecorder<Void> = EventRecorder()
    ) async throws -> (probes: [SessionProbe], homes: [URL]) {
        let directory = InMemoryPeerDirectory()
        var probes: [SessionProbe] = []
        var homes: [URL] = []
        for name in ["Ada", "Bob"] {
            let home = try scope.directory("trust\(name)")
            var configuration = PeerSessionConfiguration()
            configuration.listenHost = "127.0.0.1"
            configuration.dataDirectory = home
            configuration.trustsOnFirstUse = trustOnFirstUse
            configuration.trustStoreReloaded = { reloads.record(()) }
            let session = try await PeerSession(
                sessionID: "TypingTogether",
                displayName: name,
                configuration: configuration,
                directory: directory,
                identity: try DeviceIdentity.ephemeral(),
                trustStore: TrustStore(directory: home)
            )
            scope.stop(session)
            let probe = scope.adopt(SessionProbe(session))
            try await session.start()
            probes.append(probe)
            homes.append(home)
        }
        return (probes, homes)
    }

    @Test(.timeLimit(.minutes(1)))
    func blockingInAnotherStoreDisconnectsThePeerAndRefusesItAgain() async throws {
        try await withTestScope { scope in
            let (probes, homes) = try await Self.sessions(in: scope, trustOnFirstUse: true)
            let (ada, bob) = (probes[0], probes[1])
            let bobID = try #require(await ada.found(named: "Bob")).id
            try await ada.session.connect(to: bobID, timeout: .seconds(20))
            let adaID = try #require(
                await bob.wait { event -> PeerID? in
                    if case .stateChanged(let peer, .connected) = event { return peer }
                    return nil
                }
            )
            let bobDevice = bob.session.identity.deviceID
            #expect(TrustStore(directory: homes[0]).isPinned(bobDevice))

            // What `huddle trust block` does, in a store of its own.
            try TrustStore(directory: homes[0]).set(.blocked, for: bobDevice, displayName: "Bob")

            // The session looks at the file every 250 ms.
            #expect(await ada.state(bobID, .disconnected), "Ada drops the blocked peer")
            #expect(await bob.state(adaID, .disconnected), "Bob's connection ends too")
            #expect(ada.session.trustStore.isBlocked(bobDevice))

            // Refused both ways from now on.
            await #expect(throws: (any Error).self) { try await ada.session.connect(to: bobID, timeout: .seconds(10)) }
            await #expect(throws: (any Error).self) { try await bob.session.connect(to: adaID, timeout: .seconds(10)) }
            #expect(await ada.session.info(for: bobID)?.state != .connected)
            // Nothing the session wrote since brought the old pin back.
            #expect(TrustStore(directory: homes[0]).isBlocked(bobDevice))
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func forgettingInAnotherStoreMakesThePeerPairAgain() async throws {
        try await withTestScope { scope in
            let reloads = EventRecorder<Void>()
            let (probes, homes) = try await Self.sessions(in: scope, trustOnFirstUse: true, reloads: reloads)
            let (ada, bob) = (probes[0], probes[1])
            let bobID = try #require(await ada.found(named: "Bob")).id
            try await ada.session.connect(to: bobID, timeout: .seconds(20))
            let adaID = try #require(
                await bob.wait { event -> PeerID? in
                    if case .stateChanged(let peer, .connected) = event { return peer }
                    return nil
                }
            )
            let bobDevice = bob.session.identity.deviceID
            #expect(ada.session.trustStore.isPinned(bobDevice))
            await ada.session.disconnect(bobID)
            #expect(await bob.state(adaID, .disconnected))
            #expect(await ada.state(bobID, .disconnected))

            // What `huddle trust forget` does, in a store of its own.
            try TrustStore(directory: homes[0]).forget(bobDevice)
            // The session looks at the file every 250 ms; each time it reloaded a changed store, this looks again.
            let store = ada.session.trustStore
            #expect(
                await reloads.contains { _ in store.record(for: bobDevice) == nil },
                "the running session's store lets go of the pin"
            )

            // Bob still pins Ada and dials her as a known device: Ada asks for pairing again.
            ada.clear()
            await #expect(throws: PeerSessionError.connection(.wire(.pairingRejected(reason: .pairingRequired)))) {
                try await bob.session.connect(to: adaID, timeout: .seconds(45))
            }
            #expect(TrustStore(directory: homes[0]).record(for: bobDevice) == nil, "and the pin stays forgotten")
        }
    }
}
