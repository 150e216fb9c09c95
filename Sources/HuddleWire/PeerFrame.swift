public import NIOCore

/// One frame on a peer connection, inside TLS: a 12-byte header in the style of yamux, then the payload.
///
/// ```
/// | version (1) = 1 | kind (1) | flags (1) | reserved (1) = 0 | stream (4, big-endian) | length (4, big-endian) |
/// ```
///
/// Stream 0 carries control messages (`PeerControlMessage`); stream 1 carries the ordered reliable application
/// messages, each split into frames of at most the frame limit and ended by a frame with `endOfMessage`.
/// (`docs/security.md` §3.8, §4.10.)
public struct PeerFrame: Hashable, Sendable {
    /// The only frame version spoken today.
    public static let version: UInt8 = 1
    /// Bytes before the payload.
    public static let headerSize = 12

    public var kind: Kind
    public var flags: Flags
    public var streamID: UInt32
    public var payload: ByteBuffer

    public init(kind: Kind, flags: Flags = [], streamID: UInt32, payload: ByteBuffer) {
        self.kind = kind
        self.flags = flags
        self.streamID = streamID
        self.payload = payload
    }

    /// What a frame carries. An open set: a peer that sees an unknown kind closes with a protocol error.
    public struct Kind: RawRepresentable, Hashable, Sendable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// A control message on stream 0.
        public static let control = Self(rawValue: 0)
        /// A piece of an application message.
        public static let data = Self(rawValue: 1)
    }

    /// Frame flags.
    public struct Flags: OptionSet, Hashable, Sendable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// The last frame of an application message.
        public static let endOfMessage = Self(rawValue: 0x01)
    }

    /// The stream of control messages.
    public static let controlStream: UInt32 = 0
    /// The stream of ordered reliable application messages.
    public static let messageStream: UInt32 = 1
    /// The stream of resource transfers (offers, chunks, results), apart from the application's messages.
    public static let resourceStream: UInt32 = 2
}

/// Reads `PeerFrame`s, checking the declared length against the limit before buffering the payload
/// (`docs/security.md` §3.8: an oversized declaration fails at once, with less than one frame buffered).
public struct PeerFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = PeerFrame

    /// The largest payload accepted in one frame.
    public let maximumPayload: Int

    public init(maximumPayload: Int = 64 * 1024) {
        self.maximumPayload = maximumPayload
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let frame = try Self.readFrame(from: &buffer, maximumPayload: maximumPayload) else {
            return .needMoreData
        }
        context.fireChannelRead(Self.wrapInboundOut(frame))
        return .continue
    }

    public mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        while let frame = try Self.readFrame(from: &buffer, maximumPayload: maximumPayload) {
            context.fireChannelRead(Self.wrapInboundOut(frame))
        }
        if buffer.readableBytes > 0 { throw PeerWireError.truncatedFrame }
        return .needMoreData
    }

    /// Reads one whole frame, or nothing (and consumes nothing) when it has not fully arrived.
    public static func readFrame(from buffer: inout ByteBuffer, maximumPayload: Int) throws -> PeerFrame? {
        guard buffer.readableBytes >= PeerFrame.headerSize else { return nil }
        let start = buffer.readerIndex
        let version = buffer.getInteger(at: start, as: UInt8.self)!
        guard version == PeerFrame.version else { throw PeerWireError.unsupportedFrameVersion(version) }
        let length = Int(buffer.getInteger(at: start + 8, as: UInt32.self)!)
        guard length <= maximumPayload else {
            throw PeerWireError.frameTooLarge(limit: maximumPayload, declared: length)
        }
        guard buffer.readableBytes >= PeerFrame.headerSize + length else { return nil }
        let kind = PeerFrame.Kind(rawValue: buffer.getInteger(at: start + 1, as: UInt8.self)!)
        let flags = PeerFrame.Flags(rawValue: buffer.getInteger(at: start + 2, as: UInt8.self)!)
        let stream = buffer.getInteger(at: start + 4, as: UInt32.self)!
        buffer.moveReaderIndex(forwardBy: PeerFrame.headerSize)
        let payload = buffer.readSlice(length: length)!
        return PeerFrame(kind: kind, flags: flags, streamID: stream, payload: payload)
    }
}

/// Writes `PeerFrame`s.
public struct PeerFrameEncoder: MessageToByteEncoder {
    public typealias OutboundIn = PeerFrame

    public init() {}

    public func encode(data: PeerFrame, out: inout ByteBuffer) throws {
        Self.write(data, to: &out)
    }

    /// Appends the header and the payload of `frame` to `buffer`.
    public static func write(_ frame: PeerFrame, to buffer: inout ByteBuffer) {
        buffer.reserveCapacity(minimumWritableBytes: PeerFrame.headerSize + frame.payload.readableBytes)
        buffer.writeInteger(PeerFrame.version)
        buffer.writeInteger(frame.kind.rawValue)
        buffer.writeInteger(frame.flags.rawValue)
        buffer.writeInteger(UInt8(0))
        buffer.writeInteger(frame.streamID)
        buffer.writeInteger(UInt32(frame.payload.readableBytes))
        var payload = frame.payload
        buffer.writeBuffer(&payload)
    }
}
