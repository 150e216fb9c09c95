import NIOCore
import NIOTLS

/// Tells when a payload connection has finished TLS with the expected certificate (the verification callback
/// refuses any other), or that it never will: it failed, closed, or let the deadline pass. Nothing of a file is
/// written to a connection before that, so a silent TCP connection cannot take the file into TLS's buffer
/// (docs/kdeconnect.md, "Sharing").
final class PayloadHandshakeGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let verified: EventLoopPromise<Void>
    let deadline: TimeAmount
    var timer: Scheduled<Void>?

    init(verified: EventLoopPromise<Void>, deadline: TimeAmount) {
        self.verified = verified
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let verified = verified
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: deadline) {
            verified.fail(KDEConnectError.payload("a payload connection did not finish TLS in time"))
            channel.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        verified.fail(ChannelError.ioOnClosedChannel)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            timer?.cancel()
            verified.succeed(())
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        verified.fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        verified.fail(error)
        context.fireErrorCaught(error)
    }
}
