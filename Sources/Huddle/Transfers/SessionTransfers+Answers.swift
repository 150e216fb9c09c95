import HuddleWire
import NIOConcurrencyHelpers

extension SessionTransfers {
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
        guard let early = table.updateSending(id, { $0.takeEarly() }) else { throw PeerSessionError.cancelled }
        if let ready = early { return try ready.get() }
        guard flow.channel(for: peer) != nil else { throw PeerSessionError.notConnected(peer) }
        return try await withCheckedThrowingContinuation { continuation in
            let clock = configuration.clock
            let deadline = limit.map { clock.now + $0 }
            table.updateSending(id) { $0.wait(answerDueBy: deadline, isOffer: limit != nil) }
            outgoingWaiters[id] = continuation
            sendResourceNow(message, to: peer)
            guard let limit, let deadline else { return }
            decisionTimers[id] = Task { [weak self] in
                try? await clock.sleep(until: deadline)
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
        guard table.sending(id)?.isUnanswered(at: configuration.clock.now) == true else { return }
        sendResourceNow(.cancel(id, reason: "no answer within \(PeerSessionError.spoken(limit))"), to: peer)
        answer(id, with: .failure(.transferNotAnswered(after: limit)))
    }

    /// Hands the waiting sender its answer. An answer that comes while nothing waits — the receiver failed in
    /// the middle of the stream (a full disk) — is kept for the sender's next ``ask(_:id:peer:decisionWithin:)``,
    /// and a failure stops the stream at its next chunk.
    func answer(_ id: TransferID, with result: Result<OutgoingReply, PeerSessionError>) {
        decisionTimers.removeValue(forKey: id)?.cancel()
        guard let takes = table.updateSending(id, { $0.answered(result) }) else { return }
        if table.sending(id)?.stopsStream == true { cancelledTransfers.withLockedValue { _ = $0.insert(id) } }
        if takes, let waiter = outgoingWaiters.removeValue(forKey: id) { waiter.resume(with: result) }
    }

    /// The sender's call is over: its transfer is forgotten.
    func forgetOutgoing(_ id: TransferID) {
        if table.sending(id) != nil { table.forget(id) }
        decisionTimers.removeValue(forKey: id)?.cancel()
        cancelledTransfers.withLockedValue { _ = $0.remove(id) }
    }

    /// The receiver's reason when a stream stopped because it failed, else nil.
    func earlyFailure(_ id: TransferID) -> PeerSessionError? {
        guard case .failure(let error)? = table.sending(id)?.early else { return nil }
        return error
    }
}
