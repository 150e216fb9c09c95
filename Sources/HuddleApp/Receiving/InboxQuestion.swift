public import Huddle
public import HuddleForeign

/// Something only a person (or the rules, when they settle it) may say yes to while receiving (``Inbox``).
public enum InboxQuestion: Sendable {
    /// A Huddle peer asks to connect.
    case connection(PeerConnectionRequest)
    /// A Huddle peer, shown as `from`, offers a file or a directory.
    case transfer(IncomingTransfer, from: String)
    /// A LocalSend or KDE Connect device offers files or a text; `trust` is nil when the pins cannot be read.
    case offer(ForeignOffer, trust: ForeignTrust?)
    /// A device asks to pair (`accepted` false), or accepted this device's request (`accepted` true): both screens
    /// show `key`.
    case pairing(ForeignPeer, key: String, trust: ForeignTrust?, accepted: Bool)
}

/// How the rules settled an ``InboxQuestion`` before anyone was asked.
public enum InboxSettlement: Sendable, Equatable {
    /// Taken without a question: `--yes` (trust on first use), or a text from a pinned device.
    case takenWithoutAsking
    /// Refused without a question, for this reason.
    case refused(InboxRefusal)
}

/// Why the rules refused without asking.
public enum InboxRefusal: Sendable, Equatable, CustomStringConvertible {
    /// A directory whose name is hidden (`.ssh`), and hidden names were not allowed.
    case hiddenDirectory
    /// ``ForeignConsent`` refused (no certificate under `--yes`, the pins unreadable): its reason.
    case foreignConsent(String)
    /// The daemon's accept rule for the sender says refuse.
    case byRule

    public var description: String {
        switch self {
        case .hiddenDirectory: "its name is hidden"
        case .foreignConsent(let reason): reason
        case .byRule: "the accept rule for this sender is refuse"
        }
    }
}
