import HuddleWire

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
