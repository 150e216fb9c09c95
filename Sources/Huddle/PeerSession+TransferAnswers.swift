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
    func ask(_ message: TransferMessage, id: TransferID, peer: PeerID) async throws -> OutgoingReply {
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
        }
    }
}
