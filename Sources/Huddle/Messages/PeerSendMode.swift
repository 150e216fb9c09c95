/// How a message travels (GKSession's data modes, and the channels of game networking;
/// `docs/realtime.md`, "Delivery modes").
public enum PeerSendMode: String, Hashable, Sendable, CaseIterable {
    /// Over TLS: in the order sent on its channel, never lost while connected.
    case reliableOrdered
    /// Over TLS, never lost while connected, with no promise of order. All reliable messages share one TLS
    /// stream, so they arrive in the order sent all the same.
    case reliableUnordered
    /// As sealed UDP datagrams: may be lost or reordered, never duplicated or corrupted; a message larger than
    /// one datagram (up to ``PeerSession/maximumUnreliableMessage``) is cut into fragments and delivered whole or
    /// not at all.
    case unreliable
    /// Like ``unreliable``, and an update older than one already delivered on its channel is dropped: for game
    /// state, where only the newest counts.
    case unreliableSequenced

    /// ``reliableOrdered``, the default.
    public static var reliable: Self { .reliableOrdered }

    /// Whether the message goes over TLS.
    public var isReliable: Bool { self == .reliableOrdered || self == .reliableUnordered }
}

/// How a received message came: its mode and its channel (0 to 255; messages are ordered per channel).
public struct PeerDelivery: Hashable, Sendable, CustomStringConvertible {
    public var mode: PeerSendMode
    public var channel: UInt8

    public init(_ mode: PeerSendMode, channel: UInt8 = 0) {
        (self.mode, self.channel) = (mode, channel)
    }

    /// A reliable, ordered message on channel 0: what every reliable message of a version 2 link is.
    public static let reliable = PeerDelivery(.reliableOrdered)

    public var description: String { "\(mode.rawValue) on channel \(channel)" }
}
