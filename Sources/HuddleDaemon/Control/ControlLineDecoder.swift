public import NIOCore

/// Splits the control socket's bytes into lines (without their `\n`), at most ``ControlProtocol/maximumLineBytes``
/// each: a longer one is an error, and the connection closes.
public struct ControlLineDecoder: NIOSingleStepByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer

    let limit: Int

    public init(limit: Int = ControlProtocol.maximumLineBytes) { self.limit = limit }

    public func decode(buffer: inout ByteBuffer) throws -> ByteBuffer? {
        let view = buffer.readableBytesView
        guard let end = view.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > limit { throw ControlLineTooLong(limit: limit) }
            return nil
        }
        let length = end - view.startIndex
        guard length <= limit else { throw ControlLineTooLong(limit: limit) }
        let line = buffer.readSlice(length: length)
        buffer.moveReaderIndex(forwardBy: 1)
        return line
    }

    public func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> ByteBuffer? {
        // A last line without its newline still counts.
        if let line = try decode(buffer: &buffer) { return line }
        guard buffer.readableBytes > 0 else { return nil }
        return buffer.readSlice(length: buffer.readableBytes)
    }
}

/// A control line longer than the limit.
public struct ControlLineTooLong: Error, Equatable, CustomStringConvertible {
    public let limit: Int
    public var description: String { "a control message is longer than \(limit) bytes" }
}
