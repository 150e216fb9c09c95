import Crypto
import HuddleTestSupport
import HuddleWire
import NIOCore
import NIOEmbedded
import NIOSSL
import Testing
import X509

@testable import HuddleTransport

/// `docs/security.md` §5, row D: the refusals, with real NIOSSL on both ends of a connection in memory
/// (``InMemoryTLS``). `TLSIdentityTests` keeps the ones that need a socket.
@Suite("TLS refusals, in memory (security.md table D)")
struct TLSRefusalTests {
    /// A listener (Bob) against a client of the test's making: what both ends saw once neither has more to say.
    static func refusedAtListener(
        _ tls: TLSConfiguration?,
        listener: TransportPeer? = nil,
        sendAfterHandshake: ByteBuffer? = nil
    ) throws -> (client: RawTLSLog, server: [PeerConnectionEvent], verifier: PeerVerifier, link: InMemoryTLS) {
        let link = try InMemoryTLS(
            try listener ?? TransportPeer("bob"),
            as: .responder,
            against: .raw(tls, sendAfterHandshake: sendAfterHandshake)
        )
        try link.run()
        #expect(link.isOver(link.other), "the listener should close the connection")
        return (link.otherLog, link.events, link.verifier, link)
    }

    /// A dialler (Ada) against a server of the test's making: every event of the dialler, and its verifier.
    static func diallerEvents(against tls: TLSConfiguration) throws -> [PeerConnectionEvent] {
        try dialled(against: tls).events
    }

    static func dialled(against tls: TLSConfiguration) throws -> (events: [PeerConnectionEvent], verifier: PeerVerifier)
    {
        let link = try InMemoryTLS(try TransportPeer("ada"), as: .initiator, against: .raw(tls))
        defer { link.finish() }
        try link.run()
        #expect(link.isOver(link.huddle), "the dialler should close the connection")
        return (link.events, link.verifier)
    }

    /// A TLS 1.3 server offering `huddle/1` that presents `chain` and trusts any client: a peer that is not Huddle.
    static func rogueServer(
        chain: [[UInt8]],
        key: Certificate.PrivateKey,
        adjust: (inout TLSConfiguration) -> Void = { _ in }
    ) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try chain.map { .certificate(try NIOSSLCertificate(bytes: $0, format: .der)) },
            privateKey: .privateKey(try TestCertificates.nioKey(key))
        )
        tls.minimumTLSVersion = .tlsv13
        tls.certificateVerification = .none
        tls.applicationProtocols = [PeerTLS.applicationProtocol]
        adjust(&tls)
        return tls
    }

    // MARK: D1

    @Test func d1ClientLimitedToTLS12IsRefused() throws {
        var tls = try TLSIdentityTests.p256Client()
        tls.minimumTLSVersion = .tlsv12
        tls.maximumTLSVersion = .tlsv12
        let (client, server, verifier, link) = try Self.refusedAtListener(tls)
        defer { link.finish() }
        #expect(!client.completedHandshake)
        #expect(client.bytesRead == 0)
        #expect(client.errors.contains { $0.contains("TLSV1_ALERT_PROTOCOL_VERSION") }, "\(client.errors)")
        #expect(!server.contains { $0.isAuthenticated })
        #expect(
            TLSIdentityTests.tlsDetail(server.last?.closeReason)?.contains("UNSUPPORTED_PROTOCOL") == true,
            "\(server)"
        )
        #expect(verifier.presented == nil && verifier.rejection == nil)
    }

    @Test func d1ServerLimitedToTLS12IsRefusedByTheDialler() throws {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let rogue = try Self.rogueServer(chain: [TestCertificates.selfSigned(key)], key: key) { tls in
            tls.minimumTLSVersion = .tlsv12
            tls.maximumTLSVersion = .tlsv12
        }
        let events = try Self.diallerEvents(against: rogue)
        #expect(!events.contains { $0.isAuthenticated })
        #expect(
            TLSIdentityTests.tlsDetail(events.last?.closeReason)?.contains("TLSV1_ALERT_PROTOCOL_VERSION") == true,
            "\(events)"
        )
    }

    // MARK: D2

    @Test func d2ClientWithoutCertificateIsRefused() throws {
        let (client, server, verifier, link) = try Self.refusedAtListener(TestCertificates.rogueClient())
        defer { link.finish() }
        // In TLS 1.3 the client finishes before the server has judged its (empty) certificate (`docs/security.md`
        // §2); then the server's alert arrives instead of any application data.
        #expect(client.errors.contains { $0.contains("TLSV1_ALERT_CERTIFICATE_REQUIRED") }, "\(client.all)")
        #expect(client.bytesRead == 0)
        #expect(!server.contains { $0.isAuthenticated })
        #expect(
            TLSIdentityTests.tlsDetail(server.last?.closeReason)?.contains("PEER_DID_NOT_RETURN_A_CERTIFICATE") == true,
            "\(server)"
        )
        #expect(verifier.presented == nil && verifier.rejection == nil)
    }

    // MARK: D3

    @Test func d3ClientPresentingAChainOfTwoIsRefusedByTheListener() throws {
        let (leaf, authority, key) = try TLSIdentityTests.chainOfTwo()
        let tls = try TestCertificates.rogueClient(chain: [leaf, authority], key: TestCertificates.nioKey(key))
        let (client, server, verifier, link) = try Self.refusedAtListener(tls)
        defer { link.finish() }
        #expect(client.errors.contains { $0.contains("SSLV3_ALERT_CERTIFICATE_UNKNOWN") }, "\(client.all)")
        #expect(client.bytesRead == 0)
        #expect(!server.contains { $0.isAuthenticated })
        #expect(server.last?.closeReason == .some(.unacceptableCertificate("a chain of 2 certificates, not one")))
        #expect(verifier.rejection == .unacceptableCertificate("a chain of 2 certificates, not one"))
        #expect(verifier.presented == nil)
    }

    @Test func d3ServerPresentingAChainOfTwoIsRefusedByTheDialler() throws {
        let (leaf, authority, key) = try TLSIdentityTests.chainOfTwo()
        let (events, verifier) = try Self.dialled(against: Self.rogueServer(chain: [leaf, authority], key: key))
        #expect(!events.contains { $0.isAuthenticated })
        #expect(events.last?.closeReason == .some(.unacceptableCertificate("a chain of 2 certificates, not one")))
        #expect(verifier.presented == nil)
    }

    // MARK: D4

    @Test(arguments: TLSIdentityTests.OtherKey.allCases)
    func d4ClientWithAKeyOtherThanP256IsRefusedByTheListener(kind: TLSIdentityTests.OtherKey) throws {
        let key = try kind.make()
        let tls = try TestCertificates.rogueClient(
            chain: [TestCertificates.selfSigned(key)],
            key: TestCertificates.nioKey(key)
        )
        let (client, server, verifier, link) = try Self.refusedAtListener(tls)
        defer { link.finish() }
        #expect(client.bytesRead == 0)
        #expect(!server.contains { $0.isAuthenticated })
        // The listener only asks for ecdsa_secp256r1_sha256 signatures, so such a client cannot sign its
        // CertificateVerify: the handshake fails before the verifier sees the certificate.
        let reason = try #require(server.last?.closeReason)
        #expect(TLSIdentityTests.tlsDetail(reason)?.contains("SSLV3_ALERT_HANDSHAKE_FAILURE") == true, "\(server)")
        #expect(verifier.presented == nil && verifier.rejection == nil)
        #expect(client.errors.contains { $0.contains("NO_COMMON_SIGNATURE_ALGORITHMS") }, "\(client.all)")
    }

    @Test(arguments: TLSIdentityTests.OtherKey.allCases)
    func d4ServerWithAKeyOtherThanP256IsRefusedByTheDialler(kind: TLSIdentityTests.OtherKey) throws {
        let key = try kind.make()
        let (events, verifier) = try Self.dialled(
            against: Self.rogueServer(chain: [TestCertificates.selfSigned(key)], key: key)
        )
        #expect(!events.contains { $0.isAuthenticated })
        // The dialler only offers ecdsa_secp256r1_sha256, so the server cannot sign and gives up first.
        let reason = try #require(events.last?.closeReason)
        #expect(TLSIdentityTests.tlsDetail(reason)?.contains("SSLV3_ALERT_HANDSHAKE_FAILURE") == true, "\(events)")
        #expect(verifier.presented == nil && verifier.rejection == nil)
    }

    // MARK: D9

    /// In TLS 1.3 the client finishes before the server has judged its certificate (`docs/security.md` §2). A
    /// client that sends a frame at once, with a certificate the server refuses, gets none of it processed.
    @Test func d9AppDataAfterARefusedCertificateIsNeverProcessed() throws {
        let bob = try TransportPeer("bob")
        let key = P256.Signing.PrivateKey()
        let rogueID = DeviceID(subjectPublicKeyInfo: Array(key.publicKey.derRepresentation))
        try bob.store.set(.blocked, for: rogueID, displayName: "rogue")
        var frame = ByteBuffer()
        PeerFrameEncoder.write(
            PeerFrame(
                kind: .data,
                flags: .endOfMessage,
                streamID: PeerFrame.messageStream,
                payload: ByteBuffer(string: "sneaked in")
            ),
            to: &frame
        )
        let tls = try TestCertificates.rogueClient(
            chain: [TestCertificates.selfSigned(Certificate.PrivateKey(key))],
            key: TestCertificates.nioKey(Certificate.PrivateKey(key))
        )
        let (client, server, _, link) = try Self.refusedAtListener(tls, listener: bob, sendAfterHandshake: frame)
        defer { link.finish() }
        #expect(client.all.contains(.sent(frame.readableBytes)), "\(client.all)")
        #expect(client.bytesRead == 0)
        // The only event is the refusal: no message, and no protocol error from a frame reaching the handler.
        #expect(server.count == 1, "\(server)")
        #expect(server.last?.closeReason == .some(.blocked(rogueID)))
    }

    // MARK: D10

    @Test(arguments: [["other/1"], []])
    func d10ClientOfferingAnotherProtocolOrNoneIsClosed(protocols: [String]) throws {
        var tls = try TLSIdentityTests.p256Client()
        tls.applicationProtocols = protocols
        let (client, server, verifier, link) = try Self.refusedAtListener(tls)
        defer { link.finish() }
        // NIOSSL's server answers a mismatch with no ALPN at all (SSL_TLSEXT_ERR_NOACK): the handshake completes
        // without a protocol, and Huddle closes the connection before any frame.
        #expect(client.all.contains(.handshakeCompleted(negotiatedProtocol: nil)), "\(client.all)")
        #expect(client.bytesRead == 0)
        #expect(!server.contains { $0.isAuthenticated })
        #expect(server.last?.closeReason == .some(.tls("the peer does not speak huddle/1")))
        #expect(verifier.rejection == nil)
    }

    @Test func d10ServerOfferingAnotherProtocolIsClosedByTheDialler() throws {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let rogue = try Self.rogueServer(chain: [TestCertificates.selfSigned(key)], key: key) { tls in
            tls.applicationProtocols = ["other/1"]
        }
        let events = try Self.diallerEvents(against: rogue)
        #expect(!events.contains { $0.isAuthenticated })
        #expect(events.last?.closeReason == .some(.tls("the peer does not speak huddle/1")), "\(events)")
    }

    // MARK: D11

    /// A server that accepts and never answers: the dialler gives up at its TLS handshake deadline, not before,
    /// on the loop's clock.
    @Test func d11SilentServerTimesOutTheTLSHandshake() throws {
        let link = try InMemoryTLS(try TransportPeer("ada"), as: .initiator, against: .raw(nil))
        defer { link.finish() }
        try link.run()
        let deadline = PeerConnectionConfiguration().tlsHandshakeTimeout
        link.loop.advanceTime(by: .nanoseconds(Int64(deadline.components.seconds) * 1_000_000_000 - 1))
        try link.run()
        #expect(link.events.isEmpty, "\(link.events)")
        link.loop.advanceTime(by: .nanoseconds(1))
        try link.run()
        #expect(link.events.count == 1)
        #expect(link.events.last?.closeReason == .some(.tlsHandshakeTimedOut))
        #expect(!link.huddle.isActive)
    }

    /// A client that connects and then says nothing, or starts a ClientHello and stops (slowloris): the listener
    /// closes it at its `tlsHandshakeTimeout`, not before, on the loop's clock.
    @Test(arguments: [[], [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01]] as [[UInt8]])
    func listenerClosesAClientThatStallsTheHandshake(bytes: [UInt8]) throws {
        let link = try InMemoryTLS(try TransportPeer("bob"), as: .responder, against: .raw(nil))
        defer { link.finish() }
        if !bytes.isEmpty { try link.otherSends(bytes) }
        try link.run()
        let deadline = PeerConnectionConfiguration().tlsHandshakeTimeout
        link.loop.advanceTime(by: .nanoseconds(Int64(deadline.components.seconds) * 1_000_000_000 - 1))
        try link.run()
        #expect(link.events.isEmpty, "\(link.events)")
        link.loop.advanceTime(by: .nanoseconds(1))
        try link.run()
        #expect(link.events.count == 1)
        #expect(link.events.last?.closeReason == .some(.tlsHandshakeTimedOut))
        #expect(link.isOver(link.other))
        #expect(link.otherLog.bytesRead == 0)
    }
}
