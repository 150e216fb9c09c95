import HuddleWire

/// The rules of one file or directory being sent, without I/O: whether the offer is still waiting for its answer
/// (and until when), whether a call waits for the receiver's next answer, and what to do with an answer that
/// comes while none does. The actor keeps the waiting call and the offer's timer; see `docs/design.md`,
/// "Transfers".
struct OutgoingTransfer {
    enum Phase: Equatable {
        /// The offer is out, waiting for ACCEPT or DECLINE until `deadline` (nil: no deadline).
        case offered(deadline: ContinuousClock.Instant?)
        /// Accepted: the data goes out, then END and a wait for RESULT.
        case accepted
        /// Failed or cancelled: the stream stops at its next chunk.
        case stopped
    }

    let peer: PeerID
    private(set) var phase: Phase = .accepted
    /// Whether a call waits for the receiver's next answer.
    private(set) var waiting = false
    /// An answer that came while no call waited (the receiver failed mid-stream, a full disk): the next call to
    /// ask gets it.
    private(set) var early: Result<OutgoingReply, PeerSessionError>?

    init(peer: PeerID) { self.peer = peer }

    /// What a call about to ask the receiver gets without asking: an answer kept for it, or `.cancelled` once the
    /// transfer stopped; nil when it should ask and wait.
    mutating func takeEarly() -> Result<OutgoingReply, PeerSessionError>? {
        if let early {
            self.early = nil
            return early
        }
        return phase == .stopped ? .failure(.cancelled) : nil
    }

    /// A call asked (an offer, with the time its answer is due by, or END) and waits.
    mutating func wait(answerDueBy deadline: ContinuousClock.Instant?, isOffer: Bool) {
        waiting = true
        if isOffer { phase = .offered(deadline: deadline) }
    }

    /// The receiver answered, or the transfer ended otherwise.
    /// - Returns: whether the waiting call takes `result`; otherwise it is kept for the next call.
    mutating func answered(_ result: Result<OutgoingReply, PeerSessionError>) -> Bool {
        switch result {
        case .failure: phase = .stopped
        case .success: if case .offered = phase { phase = .accepted }
        }
        guard waiting else {
            early = result
            return false
        }
        waiting = false
        return true
    }

    /// Whether the offer's answer is overdue at `now`: the receiver is then told it is withdrawn, and the
    /// sender that it was not answered (``TransferConfiguration/decisionTimeout``).
    func isUnanswered(at now: ContinuousClock.Instant) -> Bool {
        guard case .offered(let deadline?) = phase else { return false }
        return now >= deadline
    }

    /// Whether the data stream must stop at its next chunk.
    var stopsStream: Bool { phase == .stopped }
}

/// What a receiver answered a sender.
enum OutgoingReply {
    /// A file was accepted; send from this offset.
    case offset(UInt64)
    /// A directory was accepted; send these files, each from its offset.
    case needed([TransferResumePoint])
    /// Everything arrived and was verified.
    case verified
}
