/// Whether a link that has just proved a certificate may become a device's link (docs/kdeconnect.md, "Links").
///
/// A KDE Connect device ID is public: every announcement carries it, and the only check the protocol makes is
/// that the certificate's Common Name equals it. So a device is the certificate it paired with, not its ID. A
/// second link claiming a paired device's ID with another certificate is refused, and the paired link stays; an
/// unpaired device may be replaced, and what was pending for it ends. Pure: the service applies the decision.
public enum KDEConnectLinkRule {
    /// What the table holds for the claimed device ID.
    public struct Holder: Sendable, Hashable {
        /// The SHA-256 of the certificate it linked with, uppercase hex.
        public var fingerprint: String
        public var isPaired: Bool
        public var isLinked: Bool

        public init(fingerprint: String, isPaired: Bool, isLinked: Bool) {
            self.fingerprint = fingerprint
            self.isPaired = isPaired
            self.isLinked = isLinked
        }
    }

    public enum Decision: Sendable, Hashable {
        /// The link is the device's. `replacesLink`: an earlier link of the same ID closes. `endsPending`: the
        /// device is another certificate than the one held, so its pairing starts again (paired only when this
        /// certificate is pinned) and offers, questions and waits made for the old certificate end.
        case take(replacesLink: Bool, endsPending: Bool)
        /// Another certificate under the ID of a device paired here: the newcomer is closed and said.
        case refuseImpostor(pairedFingerprint: String)
        /// A new device while the table is full of linked ones: the newcomer is closed.
        case refuseFull
    }

    /// - Parameters:
    ///   - holder: the record of the claimed ID, if there is one.
    ///   - fingerprint: the certificate the new link proved.
    ///   - tableHasRoom: a new record fits (the table is below its limit, or holds a record without a link that
    ///     can give way).
    public static func decide(holder: Holder?, fingerprint: String, tableHasRoom: Bool) -> Decision {
        guard let holder else { return tableHasRoom ? .take(replacesLink: false, endsPending: false) : .refuseFull }
        if holder.fingerprint == fingerprint.uppercased() {
            return .take(replacesLink: holder.isLinked, endsPending: false)
        }
        if holder.isPaired { return .refuseImpostor(pairedFingerprint: holder.fingerprint) }
        return .take(replacesLink: holder.isLinked, endsPending: true)
    }
}
