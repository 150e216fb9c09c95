public import HuddleForeign

/// One result of a send, reported as it is known (``HuddleDelivery``, ``ForeignDelivery``): what the command
/// prints as a line or as its JSON record.
public enum DeliveryOutcome: Sendable, Equatable {
    /// A file, a directory or a text went through; `device` is the foreign device it went to.
    case sent(SentRecord, device: ForeignPeer? = nil)
    /// An entry of a directory that is not sent.
    case skipped(SkippedRecord)
    /// A file, or everything for a device, did not go through.
    case failed(FailedRecord)
    /// A foreign device's offer of `files` failed as a whole, for one reason.
    case offerFailed(files: [String], device: ForeignPeer, error: String)
    /// A LocalSend device was pinned on its first accepted use (``ForeignPinStore``).
    case pinned(ForeignPeer)
}
