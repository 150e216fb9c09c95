public import HuddleWire

/// A peer in a session: one running `PeerSession` on some device.
///
/// The raw value is the session instance token the peer advertises and sends in its HELLO: random per
/// `PeerSession`, so two sessions on one device (one key) are two peers. What is stable across restarts is the
/// peer's ``PeerInfo/deviceID``, the hash of its key, which trust is pinned to.
public struct PeerID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// A new random token: 16 base32 characters (80 bits).
    static func random() -> PeerID {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        var generator = SystemRandomNumberGenerator()
        return PeerID(rawValue: String((0..<16).map { _ in alphabet[Int.random(in: 0..<32, using: &generator)] }))
    }
}

/// Where a peer is, in the terms of GKSession (states are not exclusive over time; a peer has one at a time).
public enum PeerState: String, Hashable, Sendable, CaseIterable {
    /// Found on the network, not connected.
    case available
    /// No longer advertised.
    case unavailable
    /// A connection is being made (TLS, pairing, decisions).
    case connecting
    case connected
    /// A connection ended.
    case disconnected
}

/// What the session knows about a peer.
public struct PeerInfo: Hashable, Sendable {
    public var id: PeerID
    /// The advertised or announced name, cleaned for display (``DisplayText``).
    public var displayName: String
    /// The device's key hash: a hint from discovery until TLS proves it.
    public var deviceID: DeviceID?
    /// Whether TLS proved `deviceID`.
    public var deviceIDVerified = false
    public var state: PeerState
}

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
