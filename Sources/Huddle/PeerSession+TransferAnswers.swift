import HuddleWire
import NIOConcurrencyHelpers

extension PeerSession {
    /// Sends `message` for outgoing transfer `id` and waits for the receiver's answer (ACCEPT's offset, or RESULT).
    ///
    /// The waiter is in place before the message goes out: on a fast link the answer can come back before an
    /// awaited write would have returned, and an answer without a waiter would be lost, leaving the sender waiting
    /// for ever. A connection that ends meanwhile fails the waiter (``transfersEnded(with:)``).
    /// - Throws: ``PeerSessionError/notConnected(_:)`` when the peer is gone already, `.cancelled`; the
    ///   receiver's refusal.
    func ask(
        _ message: TransferMessage,
        id: TransferID,
        peer: PeerID,
        decisionWithin limit: Duration? = nil
    ) async throws -> OutgoingReply {
        if let early = outgoing[id]?.early {
            outgoing[id]?.early = nil
            return try early.get()
        }
        if cancelledTransfers.withLockedValue({ $0.contains(id) }) { throw PeerSessionError.cancelled }
        return try await withCheckedThrowingContinuation { continuation in
            guard outgoing[id] != nil else { return continuation.resume(throwing: PeerSessionError.cancelled) }
            guard flow.channel(for: peer) != nil else {
                continuation.resume(throwing: PeerSessionError.notConnected(peer))
                return
            }
            outgoing[id]?.waiter = continuation
            sendResourceNow(message, to: peer)
            guard let limit else { return }
            outgoing[id]?.decisionTimer = Task { [weak self] in
                try? await Task.sleep(for: limit)
                guard !Task.isCancelled else { return }
                await self?.offerUnanswered(id, peer: peer, after: limit)
            }
        }
    }

    /// How long a sender waits for the receiver to accept or decline an offer.
    var transferDecisionTimeout: Duration { configuration.transfers.decisionTimeout }

    /// The offer's deadline passed with no answer: the receiver is told the offer is withdrawn, the sender that
    /// it was not answered.
    func offerUnanswered(_ id: TransferID, peer: PeerID, after limit: Duration) {
        guard let transfer = outgoing[id], !transfer.decided else { return }
        sendResourceNow(.cancel(id, reason: "no answer within \(PeerSessionError.spoken(limit))"), to: peer)
        answer(id, with: .failure(.transferNotAnswered(after: limit)))
    }
}
