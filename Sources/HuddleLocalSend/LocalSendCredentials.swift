public import Crypto
import HuddleLocalSendWire
import HummingbirdTLS
import NIOCore
import NIOSSL

/// The certificate and key this device shows LocalSend peers: as a server, and as a client (some peers check
/// the client's certificate too). Its fingerprint is the device's LocalSend identity.
public struct LocalSendCredentials: Sendable {
    public let certificateDER: [UInt8]
    public let privateKey: P256.Signing.PrivateKey
    public let fingerprint: String

    public init(certificateDER: [UInt8], privateKey: P256.Signing.PrivateKey) {
        self.certificateDER = certificateDER
        self.privateKey = privateKey
        fingerprint = LocalSendFingerprint.of(certificateDER: certificateDER)
    }

    func certificateChain() throws -> [NIOSSLCertificateSource] {
        [.certificate(try NIOSSLCertificate(bytes: certificateDER, format: .der))]
    }

    func sslPrivateKey() throws -> NIOSSLPrivateKeySource {
        .privateKey(try NIOSSLPrivateKey(bytes: Array(privateKey.derRepresentation), format: .der))
    }

    /// The server's TLS: a client certificate is asked for but not required (LocalSend does not demand one).
    /// One that is shown is taken whatever it is — its fingerprint, read after the handshake
    /// (``LocalSendRequestContext/clientFingerprint()``), is what proves who sends.
    func serverTLS() throws -> TLSChannelConfiguration {
        TLSChannelConfiguration(tlsConfiguration: try serverTLSConfiguration()) { _, promise in
            promise.succeed(.certificateVerified)
        }
    }

    /// The server's TLS as NIOSSL takes it (``serverTLS()`` adds the verification callback).
    func serverTLSConfiguration() throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try certificateChain(),
            privateKey: try sslPrivateKey()
        )
        tls.certificateVerification = .optionalVerification
        tls.trustRoots = .certificates([])
        tls.shutdownTimeout = Self.serverShutdownTimeout
        tls.minimumTLSVersion = Self.minimumTLSVersion
        return tls
    }

    /// How long the server waits for a client's close_notify after its own, when it closes a connection. At the
    /// end of a command every idle keep-alive connection a peer left open (after its `/register`, say) is closed
    /// that way, and a client that is not reading never answers: NIOSSL's default of 5 s held the command's exit
    /// that long (docs/localsend.md, "The API this device serves").
    static let serverShutdownTimeout: TimeAmount = .milliseconds(500)

    /// TLS 1.2 or newer, both ways (NIOSSL's default minimum is 1.0): LocalSend apps speak 1.2 and 1.3, and 1.0 and
    /// 1.1 are deprecated (RFC 8996).
    static let minimumTLSVersion = TLSVersion.tlsv12

    /// The client's TLS: the chain is not checked against any authority; the handshake's verification callback
    /// pins the peer's fingerprint instead (``LocalSendHTTPClient``).
    func clientTLS() throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateChain = try certificateChain()
        tls.privateKey = try sslPrivateKey()
        // Checked, but by the verification callback alone: no authority is trusted.
        tls.certificateVerification = .noHostnameVerification
        tls.trustRoots = .certificates([])
        tls.minimumTLSVersion = Self.minimumTLSVersion
        return tls
    }
}
