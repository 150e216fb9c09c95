import Crypto

/// The send side of one session's datagram channel: numbers, seals and frames each payload
/// (`docs/security.md` §3.7).
///
/// Packet numbers count up from 0 in each epoch and each direction, so `iv XOR pn` never repeats under one key
/// (RFC 9001 §5.3). ``rekey(now:)`` moves to the next epoch's key and restarts the count. The sealer reads no clock
/// and no random generator: time comes in as `now`, measured from any fixed start on a monotonic clock.
public struct DatagramSealer: Sendable {
    /// The default payload limit, QUIC's 1200 bytes, which avoids IP fragmentation on any sane path.
    public static let defaultMaximumPayloadByteCount = 1200
    /// After this many packets in one session the sealer refuses to go on (`docs/security.md` §3.7).
    public static let sessionPacketLimit: UInt64 = 1 << 62

    /// The largest payload ``seal(_:)`` accepts.
    public let maximumPayloadByteCount: Int
    /// The epoch byte written on every packet; it increments (wrapping) on each ``rekey(now:)``.
    public private(set) var epoch: UInt8
    /// The packet number the next sealed packet carries.
    public private(set) var nextPacketNumber: UInt64
    /// Packets sealed in this session across all epochs.
    public private(set) var sessionPacketCount: UInt64
    /// When the current epoch started, as passed to ``init(keys:now:maximumPayloadByteCount:)`` or ``rekey(now:)``.
    public private(set) var epochStart: Duration

    private var key: SymmetricKey
    private let iv: [UInt8]
    private let destination: DatagramConnectionID

    /// Creates the sealer for our sending direction.
    ///
    /// - Parameters:
    ///   - keys: our half of the ``DatagramKeySchedule``.
    ///   - now: the current time, the start of epoch 0.
    ///   - maximumPayloadByteCount: the largest payload to accept; 1200 by default.
    public init(
        keys: DatagramKeys,
        now: Duration = .zero,
        maximumPayloadByteCount: Int = Self.defaultMaximumPayloadByteCount
    ) {
        self.init(
            key: keys.sendKey,
            iv: keys.sendIV,
            destination: keys.remoteConnectionID,
            now: now,
            maximumPayloadByteCount: maximumPayloadByteCount
        )
    }

    /// Creates a sealer from raw parts; tests use `firstPacketNumber` to reach the packet limit.
    init(
        key: SymmetricKey,
        iv: [UInt8],
        destination: DatagramConnectionID,
        epoch: UInt8 = 0,
        now: Duration = .zero,
        maximumPayloadByteCount: Int = Self.defaultMaximumPayloadByteCount,
        firstPacketNumber: UInt64 = 0
    ) {
        precondition(iv.count == DatagramKeySchedule.ivByteCount, "datagram IVs are 12 bytes")
        precondition(maximumPayloadByteCount >= 0, "the payload limit cannot be negative")
        self.key = key
        self.iv = iv
        self.destination = destination
        self.epoch = epoch
        self.epochStart = now
        self.maximumPayloadByteCount = maximumPayloadByteCount
        self.nextPacketNumber = firstPacketNumber
        self.sessionPacketCount = firstPacketNumber
    }

    /// Seals one payload into a complete packet, ready for a single UDP datagram.
    ///
    /// - Throws: ``PeerWireError/datagramTooLarge(limit:size:)`` when the payload is longer than
    ///   ``maximumPayloadByteCount`` (it is never fragmented), or ``DatagramError/packetLimitReached`` once the
    ///   session has sealed 2^62 packets.
    public mutating func seal(_ payload: [UInt8]) throws -> [UInt8] {
        guard payload.count <= maximumPayloadByteCount else {
            throw PeerWireError.datagramTooLarge(limit: maximumPayloadByteCount, size: payload.count)
        }
        guard sessionPacketCount < Self.sessionPacketLimit else {
            throw DatagramError.packetLimitReached
        }
        let header = DatagramPacket.Header(epoch: epoch, destination: destination, packetNumber: nextPacketNumber)
            .bytes
        let nonce = try ChaChaPoly.Nonce(data: DatagramPacket.nonceBytes(iv: iv, packetNumber: nextPacketNumber))
        let box = try ChaChaPoly.seal(payload, using: key, nonce: nonce, authenticating: header)
        nextPacketNumber += 1
        sessionPacketCount += 1
        return header + box.ciphertext + box.tag
    }

    /// Whether `policy` says it is time to move to the next epoch.
    public func isRekeyDue(now: Duration, policy: DatagramRekeyPolicy = DatagramRekeyPolicy()) -> Bool {
        policy.isRekeyDue(packetsInEpoch: nextPacketNumber, epochAge: now - epochStart)
    }

    /// Moves to the next epoch: `key = HKDF-Expand(key, "p2ps udp ku", 32)`, the epoch byte increments and packet
    /// numbers restart at 0 (the key changed, so nonces stay unique).
    ///
    /// No message announces the new epoch: the peer's opener moves to it when the first packet of that epoch
    /// authenticates (``DatagramOpener``, `docs/wire-protocol.md` §8).
    /// - Returns: the new epoch byte.
    @discardableResult
    public mutating func rekey(now: Duration) -> UInt8 {
        key = DatagramPacket.nextEpochKey(after: key)
        epoch &+= 1
        nextPacketNumber = 0
        epochStart = now
        return epoch
    }
}
