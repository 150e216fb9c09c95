import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// A wide-area address the domain no longer lists is removed from the direct addresses: its loop ends, and the
/// peer found there is lost from there. Sessions on a ``MemoryNetwork``, no directory in common.
@Suite("Wide-area addresses removed", .timeLimit(.minutes(1)))
struct WideAreaDirectPeersTests {
    let network = MemoryNetwork()
    let clock = ManualSessionClock()

    func session(_ scope: TestScope, _ name: String, port: Int = 0) async throws -> SessionProbe {
        var configuration = PeerSessionConfiguration()
        network.configure(&configuration)
        clock.configure(&configuration)
        configuration.listenPort = port
        let session = try await PeerSession(
            sessionID: "TypingTogether",
            displayName: name,
            configuration: configuration,
            directory: InMemoryPeerDirectory(),
            identity: try DeviceIdentity.ephemeral(),
            trustStore: TrustStore()
        )
        let probe = scope.adopt(SessionProbe(session))
        try await session.start()
        return probe
    }

    @Test func aRemovedAddressLosesThePeerFoundThere() async throws {
        try await withTestScope { scope in
            let address = PeerAddress(host: "127.0.0.1", port: 47_491)
            let bob = try await session(scope, "Bob", port: 47_491)
            let ada = try await session(scope, "Ada")
            let device = bob.session.identity.deviceID
            let directPeers = ada.session.directPeers
            #expect(await directPeers.add(address, expecting: device, source: .wideArea))
            let found = try #require(await ada.found(named: "Bob"))
            #expect(found.id == bob.session.peerID)
            await directPeers.remove(address, expecting: device, source: .wideArea)
            #expect(await ada.state(bob.session.peerID, .unavailable))
            #expect(await directPeers.entries.isEmpty)
        }
    }
}
