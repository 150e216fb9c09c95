public import HuddleWire
public import NIOCore

/// What a connection reports to its owner, in order.
public enum PeerConnectionEvent: Sendable {
    /// TLS verified the peer's key.
    case authenticated(DeviceID)
    /// The handshake needs a decision: answer by writing `PeerOutbound.decision`.
    case prompt(PeerHandshake.Prompt)
    case connected(PeerHandshake.Outcome)
    /// An introduction is done (``PeerHandshake/Purpose/introduction``): who answered, and the version the two
    /// would use. `closed(nil)` follows.
    case introduced(PeerHello, version: UInt8)
    /// A whole reliable message.
    case message(ByteBuffer)
    /// A whole message of the resource stream (transfers).
    case resource(ByteBuffer)
    /// The peer's next reliable message has this sequence number; each one after it the next number.
    case resumed(UInt64)
    /// Just before `closed` of a connected connection: the reliable messages the peer had not acknowledged, in
    /// order, and the sequence number the next message would have had.
    case unacknowledged([ByteBuffer], next: UInt64)
    /// The connection ended; `nil` after a goodbye either way.
    case closed(PeerConnectionError?)
}
