import HuddleTransport
import NIOCore
import NIOSSL
import Testing

@testable import HuddleLocalSend

@Suite struct LocalSendCredentialsTests {
    /// An idle keep-alive connection that a peer left open is closed when the command ends; the server waits for
    /// the client's close_notify at most half a second (NIOSSL's default, 5 s, held `huddle send`'s exit that long
    /// after a peer's `/register` over a connection it kept).
    @Test func theServerWaitsHalfASecondAtMostForAClientsCloseNotify() throws {
        let identity = try DeviceIdentity.ephemeral()
        let credentials = LocalSendCredentials(certificateDER: identity.certificateDER, privateKey: identity.privateKey)
        let tls = try credentials.serverTLSConfiguration()
        #expect(tls.shutdownTimeout == .milliseconds(500))
        #expect(tls.certificateVerification == .optionalVerification)
    }
}
