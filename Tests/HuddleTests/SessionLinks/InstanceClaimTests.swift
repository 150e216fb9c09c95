import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// An unpaired device that copies a paired device's instance token and waits at the pairing question cannot keep
/// the paired device out (`docs/threat-model.md`, "A peer is its device"): sessions on a ``MemoryNetwork``, the
/// claimant a hand-dialled connection with its own key.
@Suite("A claimant of a paired device's instance", .timeLimit(.minutes(2)))
struct InstanceClaimTests {
    /// A session of `identity` on `network`, paired with `peer` (pinned as verified under `peerName`).
    static func session(
        _ scope: TestScope,
        _ name: String,
        identity: DeviceIdentity,
        pairedWith peer: DeviceIdentity,
        as peerName: String,
        network: MemoryNetwork,
        directory: InMemoryPeerDirectory
    ) async throws -> SessionProbe {
        var configuration = PeerSessionConfiguration()
        network.configure(&configuration)
        configuration.reconnectsDroppedPeers = false
        let trust = TrustStore()
        try trust.set(.verified, for: peer.deviceID, displayName: peerName, version: 2)
        let session = try await PeerSession(
            sessionID: "TypingTogether",
            displayName: name,
            configuration: configuration,
            directory: directory,
            identity: identity,
            trustStore: trust
        )
        return scope.adopt(SessionProbe(session))
    }

    /// Mallory dials Ada under Bob's instance token with her own key and waits at Ada's question; then Bob, paired
    /// with Ada, connects. Before, Ada refused Bob (`instanceTaken`) for as long as Mallory held the question. Now
    /// Mallory's connection is closed, her question withdrawn, and Bob is connected.
    @Test func thePairedDeviceConnectsAndTheClaimantIsClosed() async throws {
        try await withTestScope { scope in
            let (network, directory) = (MemoryNetwork(), InMemoryPeerDirectory())
            let (adaKey, bobKey) = (try DeviceIdentity.ephemeral(), try DeviceIdentity.ephemeral())
            let ada = try await Self.session(
                scope,
                "Ada",
                identity: adaKey,
                pairedWith: bobKey,
                as: "Bob",
                network: network,
                directory: directory
            )
            let bob = try await Self.session(
                scope,
                "Bob",
                identity: bobKey,
                pairedWith: adaKey,
                as: "Ada",
                network: network,
                directory: directory
            )
            try await ada.session.start()
            let bobID = bob.session.peerID
            let address = try #require(await listeningAddress(of: ada.session, in: directory))
            let mallory = try await HandDialedConnection.dial(
                address,
                as: try DeviceIdentity.ephemeral(),
                hello: PeerBindingTests.hello(ada.session, instance: bobID.rawValue, name: "Bob"),
                over: network
            )
            let question = try #require(await ada.request(direction: .incoming))
            #expect(question.peer == bobID)
            #expect(question.deviceID != bobKey.deviceID)

            try await bob.session.start()
            let adaID = try #require(await bob.found(named: "Ada")).id
            try await bob.session.connect(to: adaID, timeout: .seconds(30))
            #expect(await mallory.closed() == .some(.wire(.closedByPeer(reason: .instanceTaken))))
            #expect(
                await ada.wait { event -> Bool? in
                    if case .connectionRequestEnded(question.id, _) = event { return true }
                    return nil
                } == true
            )
            #expect(await ada.state(bobID, .connected))
            #expect(await ada.session.info(for: bobID)?.deviceID == bobKey.deviceID)
            try await bob.session.send(Array("it is me".utf8), to: [adaID])
            #expect(await ada.message(from: bobID, equalTo: "it is me"))
        }
    }
}
