import Foundation
import Huddle
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

/// `huddle trust block` and `huddle trust forget` run in a process of their own: a running session sees what they
/// wrote to `trust.json` without being restarted.
@Suite("Trust changes made by another process reach a running session")
struct TrustChangeSessionTests {
    /// A data directory of its own, removed by `remove()`.
    struct Home {
        let url: URL

        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-trust-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        }

        func remove() { try? FileManager.default.removeItem(at: url) }
    }

    /// Two sessions on loopback, each with a trust store on disk.
    static func sessions(
        _ homes: [Home],
        trustOnFirstUse: Bool
    ) async throws -> [SessionProbe] {
        let directory = InMemoryPeerDirectory()
        var probes: [SessionProbe] = []
        for (index, home) in homes.enumerated() {
            var configuration = PeerSessionConfiguration()
            configuration.listenHost = "127.0.0.1"
            configuration.dataDirectory = home.url
            configuration.trustsOnFirstUse = trustOnFirstUse
            let session = try await PeerSession(
                sessionID: "TypingTogether",
                displayName: ["Ada", "Bob"][index],
                configuration: configuration,
                directory: directory,
                identity: try DeviceIdentity.ephemeral(),
                trustStore: TrustStore(directory: home.url)
            )
            try await session.start()
            probes.append(SessionProbe(session))
        }
        return probes
    }

    /// Waits until `condition` holds (checked every 10 ms), or `seconds` pass.
    static func eventually(seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test(.timeLimit(.minutes(1)))
    func blockingInAnotherStoreDisconnectsThePeerAndRefusesItAgain() async throws {
        let homes = [try Home(), try Home()]
        defer { for home in homes { home.remove() } }
        let probes = try await Self.sessions(homes, trustOnFirstUse: true)
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
        #expect(TrustStore(directory: homes[0].url).isPinned(bobDevice))

        // What `huddle trust block` does, in a store of its own.
        try TrustStore(directory: homes[0].url).set(.blocked, for: bobDevice, displayName: "Bob")

        // The session looks at the file every 250 ms (about 0.3 s here when idle); the bound is for a machine loaded
        // with the whole suite and four CPU burners, where one run took more than 5 s.
        #expect(await ada.state(bobID, .disconnected, seconds: 20), "Ada drops the blocked peer")
        #expect(await bob.state(adaID, .disconnected, seconds: 20), "Bob's connection ends too")
        #expect(ada.session.trustStore.isBlocked(bobDevice))

        // Refused both ways from now on.
        await #expect(throws: (any Error).self) { try await ada.session.connect(to: bobID, timeout: .seconds(10)) }
        await #expect(throws: (any Error).self) { try await bob.session.connect(to: adaID, timeout: .seconds(10)) }
        #expect(await ada.session.info(for: bobID)?.state != .connected)
        // Nothing the session wrote since brought the old pin back.
        #expect(TrustStore(directory: homes[0].url).isBlocked(bobDevice))
        for probe in probes { await probe.session.stop() }
    }

    @Test(.timeLimit(.minutes(1)))
    func forgettingInAnotherStoreMakesThePeerPairAgain() async throws {
        let homes = [try Home(), try Home()]
        defer { for home in homes { home.remove() } }
        let probes = try await Self.sessions(homes, trustOnFirstUse: true)
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
        try TrustStore(directory: homes[0].url).forget(bobDevice)
        let store = ada.session.trustStore
        #expect(
            await Self.eventually(seconds: 10) { store.record(for: bobDevice) == nil },
            "the running session's store lets go of the pin"
        )

        // Bob still pins Ada and dials her as a known device: Ada asks for pairing again.
        ada.clear()
        await #expect(throws: PeerSessionError.connection(.wire(.pairingRejected(reason: .pairingRequired)))) {
            try await bob.session.connect(to: adaID, timeout: .seconds(10))
        }
        #expect(TrustStore(directory: homes[0].url).record(for: bobDevice) == nil, "and the pin stays forgotten")
        for probe in probes { await probe.session.stop() }
    }
}
