import NIOCore

/// Ends a payload connection that has sent nothing (receiving) or taken nothing (sending) for the idle time (an
/// `IdleStateHandler` before it says when):
/// the error reaches the reader, which gives the file up (docs/kdeconnect.md, "Limits").
final class PayloadIdleHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let reason: String

    init(reason: String) {
        self.reason = reason
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read || idle == .write {
            context.fireErrorCaught(KDEConnectError.payload(reason))
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
