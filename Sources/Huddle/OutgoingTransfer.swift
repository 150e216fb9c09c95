import HuddleWire

/// A file or directory being sent: who to, and the call waiting for the receiver's next answer.
struct OutgoingTransfer {
    let peer: PeerID
    /// Whether the receiver answered (or the transfer ended otherwise); the offer's deadline then stops mattering.
    var decided = false
    /// Withdraws the offer after ``TransferConfiguration/decisionTimeout``.
    var decisionTimer: Task<Void, Never>?
    var waiter: CheckedContinuation<OutgoingReply, any Error>?
    /// An answer that came while nothing waited.
    var early: Result<OutgoingReply, PeerSessionError>?
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
