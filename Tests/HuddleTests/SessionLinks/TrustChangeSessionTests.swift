import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// `huddle trust block` and `huddle trust forget` run in a process of their own: a running session sees what they
/// wrote to `trust.json` without being restarted. The sessions connect over a `MemoryNetwork`; their trust stores
/// are real files, and the session clock that paces the checks is moved by hand.
@Suite("Trust changes made by another process reach a running session", .timeLimit(.minutes(1)))
struct TrustChangeSessionTests {
    let network = MemoryNetwork()
    let clock = ManualSessionClock()

    /// Two sessions, each with a trust store on disk in a data directory of its own (the directories returned, in
    /// order), stopped and removed when `scope` ends. Returns once both sessions' checks of the store wait on the
    /// clock (nothing else does yet).
    func sessions(in scope: TestScope, trustOnFirstUse: Bool) async throws -> (probes: [SessionProbe], homes: [URL]) {
        let directory = InMemoryPeerDirectory()
        var probes: [SessionProbe] = []
        var homes: [URL] = []
        for name in ["Ada", "Bob"] {
            let home = try scope.directory("trust\(name)")
            var configuration = PeerSessionConfiguration()
            network.configure(&configuration)
            clock.configure(&configuration)
            configuration.dataDirectory = home
            configuration.trustsOnFirstUse = trustOnFirstUse
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
        try #require(await clock.waitForSleepers(2))
        return (probes, homes)
    }

    /// Connects `ada` to `bob` (trusting on first use); their IDs as each other sees them.
    func connect(_ ada: SessionProbe, to bob: SessionProbe) async throws -> (bobID: PeerID, adaID: PeerID) {
        let bobID = try #require(await ada.found(named: "Bob")).id
        try await ada.session.connect(to: bobID, timeout: .seconds(20))
        let adaID = try #require(
            await bob.wait { event -> PeerID? in
                if case .stateChanged(let peer, .connected) = event { return peer }
                return nil
            }
        )
        return (bobID, adaID)
    }

    /// Lets each session's check of its trust store run once: the checks wake, and this returns once both wait on
    /// the clock again, so whatever a check found has been acted on.
    func checkTrustStores() async throws {
        let asleep = clock.sleeperCount
        clock.advance(by: PeerSession.trustCheckInterval)
        try #require(await clock.waitForSleepers(asleep))
    }

    @Test func blockingInAnotherStoreDisconnectsThePeerAndRefusesItAgain() async throws {
        try await withTestScope { scope in
            let (probes, homes) = try await sessions(in: scope, trustOnFirstUse: true)
            let (ada, bob) = (probes[0], probes[1])
            let (bobID, adaID) = try await connect(ada, to: bob)
            let bobDevice = bob.session.identity.deviceID
            #expect(TrustStore(directory: homes[0]).isPinned(bobDevice))

            // What `huddle trust block` does, in a store of its own.
            try TrustStore(directory: homes[0]).set(.blocked, for: bobDevice, displayName: "Bob")

            try await checkTrustStores()
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

    @Test func forgettingInAnotherStoreMakesThePeerPairAgain() async throws {
        try await withTestScope { scope in
            let (probes, homes) = try await sessions(in: scope, trustOnFirstUse: true)
            let (ada, bob) = (probes[0], probes[1])
            let (bobID, adaID) = try await connect(ada, to: bob)
            let bobDevice = bob.session.identity.deviceID
            #expect(ada.session.trustStore.isPinned(bobDevice))
            await ada.session.disconnect(bobID)
            #expect(await bob.state(adaID, .disconnected))
            #expect(await ada.state(bobID, .disconnected))

            // What `huddle trust forget` does, in a store of its own.
            try TrustStore(directory: homes[0]).forget(bobDevice)
            try await checkTrustStores()
            #expect(
                ada.session.trustStore.record(for: bobDevice) == nil,
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
