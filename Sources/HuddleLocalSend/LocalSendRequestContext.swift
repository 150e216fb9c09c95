import Hummingbird
import NIOCore

/// A request's context, with the address it came from: uploads must come from where the session was prepared.
struct LocalSendRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteHost: String?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteHost = source.channel.remoteAddress?.ipAddress.map(LocalSendRequestContext.unmapped)
    }

    /// "::ffff:10.1.2.3" (an IPv4 peer reaching a dual-stack socket) as "10.1.2.3".
    static func unmapped(_ address: String) -> String {
        address.hasPrefix("::ffff:") && address.contains(".") ? String(address.dropFirst(7)) : address
    }
}
