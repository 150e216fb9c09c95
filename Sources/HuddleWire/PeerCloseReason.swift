/// Why a connection or a request ended, as carried in `DECISION` and `CLOSE` messages.
///
/// An open set: unknown reasons received from newer peers round-trip unchanged.
public struct PeerCloseReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A normal goodbye.
    public static let goodbye = Self(rawValue: 0)
    /// The user pressed Deny.
    public static let denied = Self(rawValue: 1)
    /// No decision within the decision timeout.
    public static let timedOut = Self(rawValue: 2)
    /// The requester gave up (`cancelConnect`).
    public static let cancelled = Self(rawValue: 3)
    /// The peer is blocked, or pairing is refused for now (rate limit, unreadable trust store).
    public static let refused = Self(rawValue: 4)
    /// The peer broke the protocol.
    public static let protocolError = Self(rawValue: 5)
    /// A duplicate connection between the same pair of peers lost the tie-break.
    public static let duplicate = Self(rawValue: 6)
    /// The session is full.
    public static let busy = Self(rawValue: 7)

    public var description: String {
        switch self {
        case .goodbye: "goodbye"
        case .denied: "denied"
        case .timedOut: "timed out"
        case .cancelled: "cancelled"
        case .refused: "refused"
        case .protocolError: "protocol error"
        case .duplicate: "duplicate connection"
        case .busy: "busy"
        case .pairingRequired: "pairing required"
        case .unresponsive: "unresponsive"
        case .pairingBusy: "busy pairing another device; try again shortly"
        case .pairingPaused: "pairing paused after abandoned attempts; try again in a minute"
        case .instanceTaken: "that peer is another device"
        case .linkRefused:
            "the pairing link was already used, has expired, or was never issued there; ask for a new one"
        case .ownInstance: "it reached this session itself: the address dialled is this device's own"
        default: "reason \(rawValue)"
        }
    }
}

extension PeerCloseReason {
    /// The responder does not trust the initiator's key (it was forgotten there): the initiator may retry with
    /// pairing and the short code.
    public static let pairingRequired = Self(rawValue: 8)
    /// The peer stopped answering heartbeats.
    public static let unresponsive = Self(rawValue: 9)
    /// The responder is pairing another device, or the initiator's source started a pairing run less than two
    /// seconds ago (``PairingBudget``): try again shortly.
    public static let pairingBusy = Self(rawValue: 10)
    /// The responder paused pairing after failed runs (``PairingBudget``).
    public static let pairingPaused = Self(rawValue: 11)
    /// The HELLO claims a peer (instance) that this side knows as another, verified device.
    public static let instanceTaken = Self(rawValue: 12)
    /// The pairing link's proof matched no link the responder issued that is unused and unexpired
    /// (`docs/wire-protocol.md` §5.8).
    public static let linkRefused = Self(rawValue: 13)
    /// The HELLO names the responder's own instance: the dial reached the session that made it (an address
    /// resolved through a stale or shared host name, `docs/mdns.md` B10).
    public static let ownInstance = Self(rawValue: 14)
}
