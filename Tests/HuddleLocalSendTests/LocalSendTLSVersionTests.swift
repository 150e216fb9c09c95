import HuddleTransport
import NIOSSL
import Testing

@testable import HuddleLocalSend

/// The LocalSend server and client speak TLS 1.2 or newer (NIOSSL's default minimum is 1.0): a peer that offers
/// only 1.0 or 1.1 gets no handshake.
@Suite struct LocalSendTLSVersionTests {
    @Test func theServerAndTheClientRequireTLS12() throws {
        let identity = try DeviceIdentity.ephemeral()
        let credentials = LocalSendCredentials(certificateDER: identity.certificateDER, privateKey: identity.privateKey)
        #expect(try credentials.serverTLSConfiguration().minimumTLSVersion == .tlsv12)
        #expect(try credentials.clientTLS().minimumTLSVersion == .tlsv12)
    }
}
