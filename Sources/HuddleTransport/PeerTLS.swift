import Crypto
public import HuddleWire
import NIOConcurrencyHelpers
public import NIOCore
public import NIOSSL
import SwiftASN1
import X509

/// TLS 1.3 contexts for one device identity: mutual authentication, no system trust store, and the peer's key
/// judged by `PeerVerifier` instead of a CA (`docs/security.md` §2; `docs/wire-protocol.md` §2.2–§2.4).
///
/// Contexts are expensive to make (they may touch the disk), so make one `PeerTLS` per identity, off the event
/// loop, and share it.
public struct PeerTLS: Sendable {
    /// The ALPN protocol name; a peer that does not offer it is refused.
    public static let applicationProtocol = "huddle/1"

    let serverContext: NIOSSLContext
    let clientContext: NIOSSLContext

    /// `closeNotifyTimeout` is how long a closing connection waits for the peer's TLS close_notify before it
    /// closes the socket anyway (RFC 8446 §6.1); a silent peer costs this much of a descriptor's life.
    public init(identity: DeviceIdentity, closeNotifyTimeout: TimeAmount = .seconds(5)) throws {
        let certificate = try NIOSSLCertificate(bytes: identity.certificateDER, format: .der)
        let key = try NIOSSLPrivateKey(bytes: Array(identity.privateKey.derRepresentation), format: .der)
        func configure(_ tls: inout TLSConfiguration) {
            tls.minimumTLSVersion = .tlsv13
            tls.maximumTLSVersion = .tlsv13
            tls.certificateVerification = .noHostnameVerification
            tls.trustRoots = .certificates([])
            tls.applicationProtocols = [Self.applicationProtocol]
            tls.signingSignatureAlgorithms = [.ecdsaSecp256R1Sha256]
            tls.verifySignatureAlgorithms = [.ecdsaSecp256R1Sha256]
            tls.shutdownTimeout = closeNotifyTimeout
        }
        var server = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificate)],
            privateKey: .privateKey(key)
        )
        configure(&server)
        var client = TLSConfiguration.makeClientConfiguration()
        client.certificateChain = [.certificate(certificate)]
        client.privateKey = .privateKey(key)
        configure(&client)
        self.serverContext = try NIOSSLContext(configuration: server)
        self.clientContext = try NIOSSLContext(configuration: client)
    }

    /// The handler for an accepted connection.
    public func serverHandler(verifier: PeerVerifier) -> NIOSSLServerHandler {
        NIOSSLServerHandler(context: serverContext, customVerificationCallbackWithMetadata: verifier.verify)
    }

    /// The handler for a connection we dialled. No SNI: names and addresses are not sent in the clear.
    public func clientHandler(verifier: PeerVerifier) throws -> NIOSSLClientHandler {
        try NIOSSLClientHandler(
            context: clientContext,
            serverHostname: nil,
            customVerificationCallbackWithMetadata: verifier.verify
        )
    }
}

/// Judges the certificate the peer presents in TLS: exactly one certificate, a P-256 key, not blocked, and — when
/// we dialled a pinned device — the key we pinned. It keeps what it saw so the connection can report why it failed.
public final class PeerVerifier: Sendable {
    /// The device we meant to reach, when known and pinned.
    public let expected: DeviceID?
    let isBlocked: @Sendable (DeviceID) -> Bool
    private let outcome = NIOLockedValueBox<(presented: DeviceID?, rejection: PeerConnectionError?)>((nil, nil))

    public init(expected: DeviceID?, isBlocked: @escaping @Sendable (DeviceID) -> Bool) {
        self.expected = expected
        self.isBlocked = isBlocked
    }

    /// The device the peer proved to be, once TLS has verified it.
    public var presented: DeviceID? { outcome.withLockedValue { $0.presented } }
    /// Why the peer's certificate was refused, if it was.
    public var rejection: PeerConnectionError? { outcome.withLockedValue { $0.rejection } }

    /// The NIOSSL callback; it runs on the event loop and does no I/O.
    public func verify(
        _ chain: [NIOSSLCertificate],
        _ promise: EventLoopPromise<NIOSSLVerificationResultWithMetadata>
    ) {
        switch judge(chain) {
        case .success(let id):
            outcome.withLockedValue { $0.presented = id }
            promise.succeed(.certificateVerified(VerificationMetadata(ValidatedCertificateChain(chain))))
        case .failure(let error):
            outcome.withLockedValue { $0.rejection = error }
            promise.succeed(.failed)
        }
    }

    func judge(_ chain: [NIOSSLCertificate]) -> Result<DeviceID, PeerConnectionError> {
        guard chain.count == 1 else {
            return .failure(.unacceptableCertificate("a chain of \(chain.count) certificates, not one"))
        }
        // The key is read by swift-certificates, not NIOSSL's `extractPublicKey()`, which stops the process on a key
        // BoringSSL cannot read (secp256k1, explicit curve parameters: found by FuzzPeerCertificate), and the peer
        // chooses what it presents. The ID is taken from the key's canonical encoding.
        guard let der = try? chain[0].toDERBytes(),
            let certificate = try? Certificate(derEncoded: der),
            let key = P256.Signing.PublicKey(certificate.publicKey)
        else { return .failure(.unacceptableCertificate("the key is not a P-256 key")) }
        let id = DeviceID(subjectPublicKeyInfo: Array(key.derRepresentation))
        if isBlocked(id) { return .failure(.blocked(id)) }
        if let expected, expected != id { return .failure(.peerIdentityMismatch(expected: expected, presented: id)) }
        return .success(id)
    }
}
