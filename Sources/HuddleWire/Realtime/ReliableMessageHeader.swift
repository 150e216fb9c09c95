public import NIOCore

/// The two bytes before each reliable message from protocol version 3 on: what it is and its channel
/// (`docs/wire-protocol.md` §6.2). Links of version 2 carry the application's bytes as they are.
///
/// ```
/// | kind (1): 0 ordered, 1 unordered, 2 PING, 3 PONG, 4 unreliable, 5 unreliable sequenced | channel (1) | bytes |
/// ```
///
/// A PING (kind 2) is answered by the session with a PONG (kind 3) of the same channel and bytes; neither reaches
/// the application. They time the reliable round trip (`docs/realtime.md`, "huddle ping"). Kinds 4 and 5 are
/// unreliable messages sent on the stream because UDP does not get through (``DatagramPathChoice``).
public struct ReliableMessageHeader: Hashable, Sendable {
    public static let byteCount = 2

    public enum Kind: UInt8, Sendable {
        case ordered = 0
        case unordered = 1
        case ping = 2
        case pong = 3
        case unreliable = 4
        case unreliableSequenced = 5
    }

    public var kind: Kind
    public var channel: UInt8

    public init(_ kind: Kind, channel: UInt8) {
        (self.kind, self.channel) = (kind, channel)
    }

    /// An application message's header.
    public init(unordered: Bool, channel: UInt8) {
        self.init(unordered ? .unordered : .ordered, channel: channel)
    }

    public var unordered: Bool { kind == .unordered }

    /// The header's bytes.
    public var encoded: [UInt8] { [kind.rawValue, channel] }

    /// Reads the header off the front of `buffer`; nil (and `buffer` as it was) when it is too short or names a
    /// kind that is not defined.
    public init?(readingFrom buffer: inout ByteBuffer) {
        guard let bytes = buffer.getBytes(at: buffer.readerIndex, length: Self.byteCount),
            let kind = Kind(rawValue: bytes[0])
        else { return nil }
        buffer.moveReaderIndex(forwardBy: Self.byteCount)
        (self.kind, channel) = (kind, bytes[1])
    }
}
