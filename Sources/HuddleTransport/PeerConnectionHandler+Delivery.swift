import HuddleWire
import NIOCore

/// Delivery of reliable messages across connections: each message has a sequence number that runs on from one
/// connection to the next between the same two instances; the receiver acknowledges what it read (a cumulative ACK
/// after each batch of reads, riding with a frame that goes out meanwhile), and the sender
/// keeps what is not yet acknowledged, to hand back when the connection ends so that the next connection can send
/// it again (RESUME) and the receiver can drop what it already has.
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
        guard writePendingAcknowledgement(context: context) else { return }
        context.flush()
    }

    /// After a batch of reads: the ACK goes at once, or, with an `acknowledgementDelay`, when the delay is up unless a
    /// frame going out first carries it (``flush(context:)`` writes it along) (`docs/wire-protocol.md` §6.2).
    func acknowledgeAfterReads(context: ChannelHandlerContext) {
        guard phase.owesAcknowledgement, !acknowledgementQueued else { return }
        acknowledgementQueued = true
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let send: @Sendable () -> Void = {
            let (handler, context) = bound.value
            handler.acknowledgementQueued = false
            handler.acknowledge(context: context)
        }
        guard let delay = setup.configuration.acknowledgementDelay else {
            acknowledgementQueued = false
            return acknowledge(context: context)
        }
        context.eventLoop.scheduleTask(in: TimeAmount(delay), send)
    }

    /// Writes the cumulative ACK, unflushed, if messages arrived since the last one; whether it did.
    @discardableResult
    func writePendingAcknowledgement(context: ChannelHandlerContext) -> Bool {
        guard context.channel.isActive, !closedReported, let sequence = phase.takeAcknowledgement() else {
            return false
        }
        sendControl(.ack(sequence), context: context)
        return true
    }
}
