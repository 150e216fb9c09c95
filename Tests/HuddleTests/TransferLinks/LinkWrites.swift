import HuddleTransport
import NIOCore

/// The far end of one direction of a ``TransferLink``: it takes each write with its promise instead of a socket.
/// The link completes a write only once the other side has taken the message, so a sender stays within its send
/// window of what the receiver has handled, as it does when a socket's buffers fill.
final class LinkWrites: ChannelOutboundHandler, Sendable {
    typealias OutboundIn = PeerOutbound
    typealias Write = (message: PeerOutbound, written: EventLoopPromise<Void>?)

    let writes: AsyncStream<Write>
    private let continuation: AsyncStream<Write>.Continuation

    init() {
        (writes, continuation) = AsyncStream.makeStream()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        continuation.yield((Self.unwrapOutboundIn(data), promise))
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        continuation.finish()
        context.close(mode: mode, promise: promise)
    }

    /// No more writes reach the other side.
    func finish() {
        continuation.finish()
    }
}
