/// GKSession's modes.
public enum PeerSessionMode: String, Hashable, Sendable, CaseIterable {
    /// Advertise and accept connections; do not browse.
    case server
    /// Browse and connect; do not advertise.
    case client
    /// Both.
    case peer

    var advertises: Bool { self != .client }
    var browses: Bool { self != .server }
    var wireValue: UInt8 { Array(rawValue.utf8)[0] }
}
