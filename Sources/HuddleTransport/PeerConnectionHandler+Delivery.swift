import HuddleWire
import NIOCore

/// Delivery of reliable messages across connections: each message has a sequence number that runs on from one
/// connection to the next between the same two instances; the receiver acknowledges what it read (cumulative ACK
/// after each batch of reads), and the sender keeps what is not yet acknowledged, to hand back when the connection
/// ends so that the next connection can send it again (RESUME) and the receiver can drop what it already has.
extension PeerConnectionHandler {
    /// Numbers the messages that follow from `first` on, and sends `redeliver` before anything else.
    func resume(from first: UInt64, redeliver: [ByteBuffer], context: ChannelHandlerContext) {
        phase.resume(from: first)
        sendControl(.resume(first), context: context)
        for message in redeliver {
            writeMessage(message, stream: PeerFrame.messageStream, context: context, promise: nil)
            retain(message, context: context)
        }
        context.flush()
    }

    /// Keeps a written message until the peer acknowledges it.
    func retain(_ message: ByteBuffer, context: ChannelHandlerContext) {
        if let error = phase.retain(message) { fail(error, context: context) }
    }

    /// The peer has every message numbered below `sequence`.
    func acknowledged(through sequence: UInt64, context: ChannelHandlerContext) {
        switch phase.receivedAcknowledgement(through: sequence) {
        case .none: break
        case .close: context.close(promise: nil)
        case .fail(let error): fail(error, context: context)
        }
    }

    /// Sends the cumulative ACK if messages arrived since the last one.
    func acknowledge(context: ChannelHandlerContext) {
        guard context.channel.isActive, !closedReported, let sequence = phase.takeAcknowledgement() else { return }
        sendControl(.ack(sequence), context: context)
        context.flush()
    }
}
