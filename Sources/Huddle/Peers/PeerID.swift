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

    /// The characters of a random token: base32's lower case (RFC 4648 §6).
    static let tokenAlphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)
    /// The length of a random token.
    static let tokenLength = 16

    /// A new random token: 16 base32 characters (80 bits).
    static func random() -> PeerID {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<tokenLength).map { _ in tokenAlphabet[Int.random(in: 0..<32, using: &generator)] }
        return PeerID(rawValue: String(decoding: bytes, as: UTF8.self))
    }
}
