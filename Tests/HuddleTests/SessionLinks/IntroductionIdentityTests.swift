import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// At a remembered address the session expects the paired device: whoever else answers there learns nothing of
/// this device, not even its certificate (`docs/threat-model.md`, "Direct addresses"). In memory
/// (``MemoryNetwork``): the stranger is a listener there with a TLS server of its own.
@Suite("Introductions at a remembered address", .timeLimit(.minutes(1)))
struct IntroductionIdentityTests {
    /// A TLS server with a stranger's key: it records the certificate a client shows, if any.
    struct Stranger {
        let channel: any Channel
        let verifier: PeerVerifier
        let ended: AsyncStream<Void>

        static func listen(in network: MemoryNetwork) async throws -> Stranger {
            let tls = try PeerTLS(identity: try DeviceIdentity.ephemeral())
            let verifier = PeerVerifier(expected: nil, isBlocked: { _ in false })
            let (ended, continuation) = AsyncStream<Void>.makeStream()
            let channel = try await network.listen { pipeline, child in
                child.closeFuture.whenComplete { _ in continuation.yield() }
                try pipeline.addHandler(tls.serverHandler(verifier: verifier))
            }
            return Stranger(channel: channel, verifier: verifier, ended: ended)
        }
    }

    /// Bob was reached at 127.0.0.1:P; now a stranger answers there. Ada's introduction ends in TLS, before her
    /// certificate (and so her device ID, name and instance) is shown.
    @Test func aStrangerAtABobsRememberedAddressNeverSeesAdasCertificate() async throws {
        let network = MemoryNetwork()
        let stranger = try await Stranger.listen(in: network)
        defer { stranger.channel.close(promise: nil) }
        let port = try #require(stranger.channel.localAddress?.port)
        let bob = try DeviceIdentity.ephemeral().deviceID
        let trust = TrustStore()
        try trust.set(.verified, for: bob, displayName: "Bob", version: 1)
        try trust.remember(address: "127.0.0.1:\(port)", for: bob)
        try await withTestScope { scope in
            var configuration = PeerSessionConfiguration()
            configuration.listenPort = 0
            network.configure(&configuration)
            let ada = try await PeerSession(
                sessionID: "TypingTogether",
                displayName: "Ada",
                configuration: configuration,
                directory: InMemoryPeerDirectory(),
                identity: try DeviceIdentity.ephemeral(),
                trustStore: trust
            )
            _ = scope.adopt(SessionProbe(ada))
            try await ada.start()
            var ends = stranger.ended.makeAsyncIterator()
            // The first introduction comes at once (the device is neither connected nor found nearby).
            #expect(await ends.next() != nil)
            #expect(stranger.verifier.presented == nil, "Ada showed her certificate to a stranger")
        }
    }
}
