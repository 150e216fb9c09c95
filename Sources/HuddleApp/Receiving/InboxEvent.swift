public import Huddle
public import HuddleForeign
public import HuddleWire

/// What happens while receiving (``Inbox``), for the caller to show.
public enum InboxEvent: Sendable {
    /// The rules settled a question without asking anyone.
    case settled(InboxQuestion, InboxSettlement)
    /// A Huddle transfer moved on.
    case progress(TransferProgress)
    /// A foreign transfer moved on.
    case foreignProgress(ForeignProgress)
    /// A file or a directory was kept, at `record.path`.
    case received(ReceivedRecord)
    /// A device's text was taken.
    case text(TextRecord, from: ForeignPeer)
    /// That text was put on the clipboard too, or could not be (`error`).
    case onClipboard(from: ForeignPeer)
    case notOnClipboard(error: String)
    /// A transfer failed; its message is said as it is.
    case failed(FailedRecord)
    /// An accepted offer could not be taken (its directory could not be written, …).
    case notTaken(error: String)
    /// A device's certificate is not the one pinned for it.
    case fingerprintChanged(ForeignPeer, pinned: String)
    /// A device was pinned on its first accepted use, or could not be (`error`).
    case pinned(ForeignPeer)
    case notPinned(ForeignPeer, error: String)
    /// The pins could not be read (then nothing is taken from an unpinned device).
    case pinsUnreadable(error: String)
    /// A device paired (KDE Connect), or its pairing ended.
    case paired(ForeignPeer)
    case pairingEnded(ForeignPeer, reason: String)
    /// Too many wrong pairing codes: pairing waits.
    case pairingPaused(PairingBudget.Pause)
}
