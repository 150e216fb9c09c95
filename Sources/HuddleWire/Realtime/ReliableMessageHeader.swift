public import NIOCore

/// The two bytes before each reliable application message from protocol version 3 on: how it was sent and its
/// channel (`docs/wire-protocol.md` §6.1). Links of version 2 carry the application's bytes as they are.
///
/// ```
/// | mode (1): 0 ordered, 1 unordered | channel (1) | bytes |
/// ```
public struct ReliableMessageHeader: Hashable, Sendable {
    public static let byteCount = 2
    static let orderedMode: UInt8 = 0
    static let unorderedMode: UInt8 = 1

    public var unordered: Bool
    public var channel: UInt8

    public init(unordered: Bool, channel: UInt8) {
        (self.unordered, self.channel) = (unordered, channel)
    }

    /// The header's bytes.
    public var encoded: [UInt8] { [unordered ? Self.unorderedMode : Self.orderedMode, channel] }

    /// Reads the header off the front of `buffer`; nil (and `buffer` as it was) when it is too short or names a
    /// mode that is not defined.
    public init?(readingFrom buffer: inout ByteBuffer) {
        guard let bytes = buffer.getBytes(at: buffer.readerIndex, length: Self.byteCount),
            bytes[0] == Self.orderedMode || bytes[0] == Self.unorderedMode
        else { return nil }
        buffer.moveReaderIndex(forwardBy: Self.byteCount)
        (unordered, channel) = (bytes[0] == Self.unorderedMode, bytes[1])
    }
}
