import HuddleLocalSendWire
import Hummingbird
import NIOCore
import NIOSSL

/// A request's context, with the address it came from (uploads must come from where the session was prepared)
/// and the connection, whose client certificate proves who sends.
struct LocalSendRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// The address the request came from, as the connection says.
    var remoteHost: String? { channel.remoteAddress?.ipAddress.map(Self.unmapped) }

    /// "::ffff:10.1.2.3" (an IPv4 peer reaching a dual-stack socket) as "10.1.2.3".
    static func unmapped(_ address: String) -> String {
        address.hasPrefix("::ffff:") && address.contains(".") ? String(address.dropFirst(7)) : address
    }

    /// The fingerprint of the certificate the client showed in TLS, if it showed one.
    func clientFingerprint() async -> String? {
        let certificate = try? await channel.pipeline.handler(type: NIOSSLServerHandler.self).map {
            $0.peerCertificate.flatMap { try? $0.toDERBytes() }
        }.get()
        return (certificate ?? nil).map { LocalSendFingerprint.of(certificateDER: $0) }
    }
}
