public import Crypto
import HuddleKDEConnectWire
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// This device as KDE Connect knows it: its device ID (32 hex digits, from its key) and a certificate whose Common
/// Name is that ID (docs/kdeconnect.md, "Identity"), kept so paired devices find the same one next time.
public struct KDEConnectCredentials: Sendable {
    public let deviceId: String
    public let certificateDER: [UInt8]
    public let privateKey: P256.Signing.PrivateKey

    public init(deviceId: String, certificateDER: [UInt8], privateKey: P256.Signing.PrivateKey) {
        self.deviceId = deviceId
        self.certificateDER = certificateDER
        self.privateKey = privateKey
    }

    /// The device ID a key gives: the first 16 bytes of SHA-256 of its public key, in hex.
    public static func deviceID(for key: P256.Signing.PublicKey) -> String {
        SHA256.hash(data: key.derRepresentation).prefix(16).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }

    /// The TLS of a link or a payload connection, in either role. The peer must show a certificate; the callback
    /// takes any and records it: who it is, and whether it is the one paired, is judged after the handshake.
    func context(server: Bool) throws -> NIOSSLContext {
        let chain: [NIOSSLCertificateSource] = [
            .certificate(try NIOSSLCertificate(bytes: certificateDER, format: .der))
        ]
        let key = NIOSSLPrivateKeySource.privateKey(
            try NIOSSLPrivateKey(bytes: Array(privateKey.derRepresentation), format: .der)
        )
        var tls =
            server
            ? TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: key)
            : TLSConfiguration.makeClientConfiguration()
        if !server {
            tls.certificateChain = chain
            tls.privateKey = key
        }
        tls.minimumTLSVersion = .tlsv12
        tls.certificateVerification = .noHostnameVerification
        tls.trustRoots = .certificates([])
        return try NIOSSLContext(configuration: tls)
    }
}

/// The certificate a peer showed in TLS, kept by the verification callback.
final class PresentedCertificate: Sendable {
    private let box = NIOLockedValueBox<[UInt8]?>(nil)
    /// The certificate that must be shown (a payload connection: the link's); nil takes any.
    let expected: [UInt8]?

    init(expected: [UInt8]? = nil) { self.expected = expected }

    var der: [UInt8]? { box.withLockedValue { $0 } }

    func verify(_ chain: [NIOSSLCertificate], _ promise: EventLoopPromise<NIOSSLVerificationResult>) {
        guard let leaf = chain.first, let der = try? leaf.toDERBytes() else {
            promise.succeed(.failed)
            return
        }
        box.withLockedValue { $0 = der }
        if let expected, expected != der {
            promise.succeed(.failed)
        } else {
            promise.succeed(.certificateVerified)
        }
    }
}
