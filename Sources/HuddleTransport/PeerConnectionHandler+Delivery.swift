import HuddleWire
import NIOCore

/// Delivery of reliable messages across connections: each message has a sequence number that runs on from one
/// connection to the next between the same two instances; the receiver acknowledges what it read (cumulative ACK
/// after each batch of reads), and the sender keeps what is not yet acknowledged, to hand back when the connection
/// ends so that the next connection can send it again (RESUME) and the receiver can drop what it already has.
extension PeerConnectionHandler {
    /// Numbers the messages that follow from `first` on, and sends `redeliver` before anything else.
    func resume(from first: UInt64, redeliver: [ByteBuffer], context: ChannelHandlerContext) {
        sentResume = true
        outgoingSequence = first
        sendControl(.resume(first), context: context)
        for message in redeliver {
            writeMessage(message, stream: PeerFrame.messageStream, context: context, promise: nil)
            retain(message, context: context)
        }
        context.flush()
    }

    /// Keeps a written message until the peer acknowledges it.
    func retain(_ message: ByteBuffer, context: ChannelHandlerContext) {
        outgoingSequence &+= 1
        unacknowledged.append(message)
        unacknowledgedBytes += message.readableBytes
        let limit = setup.configuration.maximumUnacknowledgedBytes
        if unacknowledgedBytes > limit {
            fail(
                .protocolViolation(state: "connected", message: "over \(limit) bytes of messages not acknowledged"),
                context: context
            )
        }
    }

    /// The peer has every message numbered below `sequence`.
    func acknowledged(through sequence: UInt64, context: ChannelHandlerContext) {
        guard sequence <= outgoingSequence else {
            return fail(
                .protocolViolation(state: "connected", message: "ACK of \(sequence) beyond \(outgoingSequence)"),
                context: context
            )
        }
        var first = outgoingSequence - UInt64(unacknowledged.count)
        while first < sequence, let message = unacknowledged.popFirst() {
            unacknowledgedBytes -= message.readableBytes
            first += 1
        }
        if closingAfterGoodbye && unacknowledged.isEmpty { context.close(promise: nil) }
    }

    /// Sends the cumulative ACK if messages arrived since the last one.
    func acknowledge(context: ChannelHandlerContext) {
        guard acknowledgementPending, context.channel.isActive, !closedReported else { return }
        acknowledgementPending = false
        sendControl(.ack(incomingSequence), context: context)
        context.flush()
    }
}
