import HuddleErrors
import NIOCore

/// The bytes of one bus connection: first the authentication (``DBusAuthentication``), then messages framed by
/// their lengths (``DBusMessage/length(ofMessageStartingWith:)``) and handed to ``DBusRouter``. Bytes that break
/// the format close the connection.
final class DBusChannelHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var authentication: DBusAuthentication?
    private var pending: [UInt8] = []
    private let router: DBusRouter
    private let authenticated: EventLoopPromise<String>

    init(userID: UInt32, router: DBusRouter, authenticated: EventLoopPromise<String>) {
        authentication = DBusAuthentication(userID: userID)
        self.router = router
        self.authenticated = authenticated
    }

    func channelActive(context: ChannelHandlerContext) {
        if let authentication {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: authentication.opening)), promise: nil)
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        do {
            guard var auth = authentication else { return try frame(bytes) }
            guard let outcome = try auth.receive(bytes) else {
                authentication = auth
                return
            }
            authentication = nil
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: outcome.send)), promise: nil)
            authenticated.succeed(outcome.guid)
            try frame(outcome.rest)
        } catch {
            router.fail(error)
            authenticated.fail(error)
            context.close(promise: nil)
        }
    }

    /// Hands on every whole message in what came so far.
    private func frame(_ bytes: [UInt8]) throws(NotificationError) {
        pending += bytes
        while pending.count >= DBusMessage.prefixLength {
            let length = try DBusMessage.length(ofMessageStartingWith: pending)
            guard pending.count >= length else { return }
            let message = try DBusMessage(decoding: Array(pending[..<length]))
            pending.removeFirst(length)
            router.received(message)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let closed = NotificationError(.disconnected, "the session bus closed the connection")
        router.fail(closed)
        authenticated.fail(closed)
        context.fireChannelInactive()
    }

    /// A channel that never connected (no bus at the path) is torn down without going inactive: the wait for
    /// authentication ends here then (a promise is never left unfulfilled).
    func handlerRemoved(context: ChannelHandlerContext) {
        authenticated.fail(NotificationError(.disconnected, "the connection to the session bus ended"))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        router.fail(NotificationError(.disconnected, "the connection to the session bus failed: \(error)"))
        context.close(promise: nil)
    }
}
