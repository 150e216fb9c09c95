public import NIOCore

// `ByteBuffer` entry points for the channel handler that owns the UDP socket. They wrap the `[UInt8]` API.

extension DatagramConnectionID {
    /// The `dst_cid` of a received packet, read without copying or consuming it, so a socket shared by several
    /// sessions can route the packet before any crypto (`docs/security.md` §3.7, receive order step 2).
    ///
    /// - Returns: `nil` when the packet is shorter than the 34-byte minimum, which makes it malformed anyway.
    public init?(destinationOf packet: ByteBuffer) {
        guard packet.readableBytes >= DatagramPacket.minimumByteCount,
            let value = packet.getInteger(at: packet.readerIndex + 2, as: UInt64.self)
        else { return nil }
        self.init(rawValue: value)
    }
}

extension DatagramSealer {
    /// Seals the readable bytes of `payload` into a new buffer allocated from `allocator`.
    ///
    /// - Throws: as ``seal(_:)``.
    public mutating func seal(_ payload: ByteBuffer, allocator: ByteBufferAllocator) throws -> ByteBuffer {
        let packet = try seal(Array(payload.readableBytesView))
        var buffer = allocator.buffer(capacity: packet.count)
        buffer.writeBytes(packet)
        return buffer
    }
}

extension DatagramOpener {
    /// Checks and opens the readable bytes of `packet`, as ``open(_:now:)``.
    ///
    /// The header is read in place: packets that are too short, of another version or for another connection ID
    /// are counted and dropped before anything is copied.
    public mutating func open(_ packet: ByteBuffer, now: Duration) -> DatagramOpenResult {
        let header = DatagramPacket.Header(parsing: packet)
        if let reason = screen(header) { return .dropped(reason) }
        guard let header else { return .dropped(.malformed) }  // screen(_:) already dropped a missing header
        return open(Array(packet.readableBytesView), header: header, now: now)
    }
}

extension DatagramPacket.Header {
    /// Reads the header at the reader index of `packet` without moving it, or returns `nil` when the readable
    /// bytes are fewer than ``DatagramPacket/minimumByteCount``.
    init?(parsing packet: ByteBuffer) {
        guard packet.readableBytes >= DatagramPacket.minimumByteCount,
            let version = packet.getInteger(at: packet.readerIndex, as: UInt8.self),
            let epoch = packet.getInteger(at: packet.readerIndex + 1, as: UInt8.self),
            let destination = packet.getInteger(at: packet.readerIndex + 2, as: UInt64.self),
            let packetNumber = packet.getInteger(at: packet.readerIndex + 10, as: UInt64.self)
        else { return nil }
        self.init(
            version: version,
            epoch: epoch,
            destination: DatagramConnectionID(rawValue: destination),
            packetNumber: packetNumber
        )
    }
}
