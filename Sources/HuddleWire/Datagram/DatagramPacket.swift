import Crypto

/// The fixed layout of a protected datagram (`docs/security.md` §3.7).
///
/// ```
/// | ver(1) | epoch(1) | dst_cid(8) | pn(8, big-endian) | ciphertext | tag(16) |
/// nonce = iv XOR (0x00000000 ‖ pn)
/// AAD   = ver ‖ epoch ‖ dst_cid ‖ pn        (the 18-byte header as sent)
/// ```
///
/// The nonce is the TLS 1.3 / QUIC construction (RFC 8446 §5.3, RFC 9001 §5.3): a per-direction IV XORed with the
/// packet number, so it is never random and never repeats under one key.
enum DatagramPacket {
    /// The only version this layer speaks.
    static let version: UInt8 = 1
    /// `ver ‖ epoch ‖ dst_cid ‖ pn`.
    static let headerByteCount = 18
    /// The Poly1305 tag (RFC 8439 §2.5).
    static let tagByteCount = 16
    /// Header plus tag: the shortest packet that can carry an empty payload; anything shorter is malformed.
    static let minimumByteCount = headerByteCount + tagByteCount
    /// The label that derives the next epoch's key from the current one.
    static let keyUpdateLabel = Array("p2ps udp ku".utf8)

    /// A parsed header; only the layout is checked, nothing is authenticated yet.
    struct Header: Hashable {
        var version: UInt8
        var epoch: UInt8
        var destination: DatagramConnectionID
        var packetNumber: UInt64

        /// The 18 header bytes, which are also the AAD.
        var bytes: [UInt8] {
            var out: [UInt8] = [version, epoch]
            out.reserveCapacity(DatagramPacket.headerByteCount)
            out += destination.bytes
            out += DatagramConnectionID(rawValue: packetNumber).bytes
            return out
        }

        /// Reads the header from the start of `packet`, or returns `nil` when the packet is shorter than
        /// ``DatagramPacket/minimumByteCount``.
        init?(parsing packet: [UInt8]) {
            guard packet.count >= DatagramPacket.minimumByteCount else { return nil }
            self.version = packet[0]
            self.epoch = packet[1]
            self.destination = DatagramConnectionID(rawValue: Self.readUInt64(packet, at: 2))
            self.packetNumber = Self.readUInt64(packet, at: 10)
        }

        init(
            version: UInt8 = DatagramPacket.version,
            epoch: UInt8,
            destination: DatagramConnectionID,
            packetNumber: UInt64
        ) {
            self.version = version
            self.epoch = epoch
            self.destination = destination
            self.packetNumber = packetNumber
        }

        private static func readUInt64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
            bytes[offset..<offset + 8].reduce(0) { ($0 << 8) | UInt64($1) }
        }
    }

    /// `iv XOR (0x00000000 ‖ pn)`, with `pn` big-endian in the last 8 bytes.
    static func nonceBytes(iv: [UInt8], packetNumber: UInt64) -> [UInt8] {
        precondition(iv.count == DatagramKeySchedule.ivByteCount, "datagram IVs are 12 bytes")
        var nonce = iv
        for index in 0..<8 {
            nonce[4 + index] ^= UInt8(truncatingIfNeeded: packetNumber >> (56 - 8 * UInt64(index)))
        }
        return nonce
    }

    /// The key of the next epoch: `HKDF-Expand(prk: key, info: "p2ps udp ku", 32)`.
    static func nextEpochKey(after key: SymmetricKey) -> SymmetricKey {
        HKDF<SHA256>.expand(
            pseudoRandomKey: key.datagramBytes,
            info: keyUpdateLabel,
            outputByteCount: DatagramKeySchedule.keyByteCount
        )
    }
}
