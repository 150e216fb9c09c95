/// The 8-byte connection ID that a packet carries as `dst_cid` (`docs/security.md` §3.7).
///
/// Each side owns one ID, derived from the key schedule: a packet sent from the initiator to the responder carries
/// the responder's ID, and the other way round. The receiver looks the session up by this value before spending any
/// work on the packet.
public struct DatagramConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// The ID as a big-endian integer, exactly as it appears on the wire.
    public var rawValue: UInt64

    /// Creates an ID from its wire value.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Creates an ID from its 8 wire bytes; `nil` unless exactly 8 bytes are given.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 8 else { return nil }
        self.rawValue = bytes.reduce(0) { ($0 << 8) | UInt64($1) }
    }

    /// The 8 wire bytes, big-endian.
    public var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: rawValue >> (56 - 8 * UInt64($0))) }
    }

    public var description: String {
        Hex.encode(bytes)
    }
}

extension DatagramConnectionID {
    /// The `dst_cid` of a received packet, so a socket shared by several sessions can route it before any crypto
    /// (`docs/security.md` §3.7, receive order step 2).
    ///
    /// - Returns: `nil` when the packet is shorter than the 34-byte minimum, which makes it malformed anyway.
    public init?(destinationOf packet: [UInt8]) {
        guard let header = DatagramPacket.Header(parsing: packet) else { return nil }
        self = header.destination
    }
}
