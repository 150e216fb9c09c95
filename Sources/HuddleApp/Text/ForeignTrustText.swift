public import HuddleForeign

/// What the user is told about a foreign peer's identity.
public enum ForeignTrustText {
    /// The warning for a device whose certificate is not the one pinned for its name (`pinned`, a fingerprint).
    public static func changed(_ peer: ForeignPeer, pinned: String) -> String {
        guard peer.fingerprint != nil else {
            return "WARNING: the \(peer.protocol.rawValue) device \(peer.name) shows no certificate, but fingerprint "
                + "\(pinned.prefix(16))… is pinned for that name: it may be another device posing as it. Nothing is "
                + "sent to or taken from it without asking."
        }
        return "WARNING: the \(peer.protocol.rawValue) device \(peer.name) now shows fingerprint "
            + "\(peer.fingerprint?.prefix(16) ?? "none")…, not the \(pinned.prefix(16))… pinned for it: it may be "
            + "another device posing as it. Nothing is sent to or taken from it without asking."
    }

    /// What is said when a device is pinned on its first accepted use.
    public static func pinned(_ peer: ForeignPeer) -> String {
        "* pinned \(peer.protocol.rawValue) device \(peer.name) (fingerprint \(peer.fingerprint?.prefix(16) ?? "")…) on "
            + "first use: nothing verified it; another certificate under this name will be warned about"
    }
}
