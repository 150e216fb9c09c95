/// What the daemon does with a file or a text from a device (docs/daemon.md, "Accept rules").
public enum AcceptRule: String, Codable, Sendable, CaseIterable {
    /// Taken without a question.
    case accept
    /// Asked: `huddle answer` or a desktop notification (docs/notifications.md) says yes or no.
    case ask
    /// Declined without a question.
    case refuse
}

/// The daemon's accept rules: one per device where the user set one, else by how the device is trusted — a
/// paired device's offers are taken, anyone else's asked about.
public struct AcceptPolicy: Sendable, Equatable {
    /// How a sender is known when its offer comes.
    public enum Sender: Sendable, Equatable {
        /// Paired: its key pinned after a compared code or a pairing link (Huddle), or its certificate pinned and
        /// paired (KDE Connect).
        case paired
        /// Known but not paired: pinned on first use, never compared.
        case trustedOnFirstUse
        /// Not known.
        case stranger
    }

    /// Rules set per device, by device ID (a Huddle device ID, or a foreign device's fingerprint).
    public var perDevice: [String: AcceptRule]
    /// The rule for a paired device without one of its own.
    public var paired: AcceptRule
    /// The rule for everyone else without one of their own: never `accept` unless the user chose so.
    public var others: AcceptRule

    public init(perDevice: [String: AcceptRule] = [:], paired: AcceptRule = .accept, others: AcceptRule = .ask) {
        self.perDevice = perDevice
        self.paired = paired
        self.others = others
    }

    /// The rule for an offer from `device`, known as `sender`.
    public func rule(for device: String?, sender: Sender) -> AcceptRule {
        if let device, let own = perDevice[device] { return own }
        return sender == .paired ? paired : others
    }
}
