/// One link's real-time rules from protocol version 3 on, without I/O or keys: what goes into each sealed
/// datagram (``RealtimeDatagram``) and what becomes of each one opened — numbered per channel, cut into fragments
/// and rebuilt, sequenced updates checked, PINGs answered, PONGs timed, and everything counted for the link's
/// statistics (`docs/realtime.md`; `docs/wire-protocol.md` §8.5). Pure: time comes in as `now`, a monotonic
/// duration since any fixed start.
public struct RealtimeLink: Sendable {
    /// The largest unreliable message: 64 KiB, in at most 64 fragments.
    public static let maximumMessageBytes = 64 * 1024

    /// What one opened datagram asks of the link's owner.
    public enum Incoming: Hashable, Sendable {
        /// Hand `bytes` to the application: they came on `channel`, sequenced or not.
        case deliver([UInt8], channel: UInt8, sequenced: Bool)
        /// Seal and send this PONG back.
        case answer([UInt8])
        /// The PONG of ping `id` came back after `roundTrip`.
        case answered(id: UInt32, roundTrip: Duration)
        /// Nothing to do: a fragment kept, a stale update, a duplicate, a malformed payload (each counted).
        case none
    }

    /// What the link counted, the figures of ``PeerSession/linkStatistics(for:)``.
    public struct Counts: Hashable, Sendable {
        public var datagramsSent: UInt64 = 0
        public var datagramsReceived: UInt64 = 0
        /// Payload bytes, after sealing's overhead is taken off.
        public var bytesSent: UInt64 = 0
        public var bytesReceived: UInt64 = 0
        public var pingsSent: UInt32 = 0
        public var pingsReceived: UInt32 = 0
        public var pongsReceived: UInt32 = 0
        /// What the peer's latest PONG said: how many of this side's PINGs it had received, and the id answered.
        public var peerPingsReceived: UInt32 = 0
        public var latestAnsweredPing: UInt32?
        /// Updates dropped because a newer one on their channel had been delivered.
        public var staleDropped: UInt64 = 0
        /// Payloads that were none of the kinds, and fragments refused.
        public var malformed: UInt64 = 0
        /// Unreliable messages sent on the TLS stream, as UDP did not get through (``DatagramPathChoice``).
        public var messagesOnStream: UInt64 = 0

        public init() {}

        /// The share of this side's PINGs the peer did not receive, as its latest PONG tells; nil before one.
        public var lossOut: Double? {
            guard let id = latestAnsweredPing else { return nil }
            let sent = Double(id) + 1
            return max(0, 1 - Double(peerPingsReceived) / sent)
        }

        /// The share of the peer's PONGs that did not arrive here; nil before one. The peer answers every PING it
        /// receives, so it sent as many PONGs as its latest PONG says it received PINGs.
        public var lossBack: Double? {
            guard latestAnsweredPing != nil, peerPingsReceived > 0 else { return nil }
            return max(0, 1 - Double(pongsReceived) / Double(peerPingsReceived))
        }
    }

    public private(set) var counts = Counts()
    public private(set) var roundTrip = RoundTripEstimate()
    public private(set) var sequenced = SequencedDelivery()
    public private(set) var reassembly = FragmentReassembly()
    /// UDP or the TLS stream, as the PONGs say.
    public private(set) var path = DatagramPathChoice()
    /// The largest sealed payload (``DatagramSealer/defaultMaximumPayloadByteCount``).
    public let maximumPayload: Int
    private var nextSequence: [UInt8: UInt16] = [:]
    private var nextMessage: UInt32 = 0
    private var nextPing: UInt32 = 0

    public init(maximumPayload: Int = DatagramSealer.defaultMaximumPayloadByteCount) {
        self.maximumPayload = maximumPayload
    }

    /// The payloads of one unreliable message on `channel`: one, or fragments of at most ``maximumPayload`` each
    /// when the message does not fit one. All carry the channel's next sequence number.
    /// - Throws: ``PeerWireError/datagramTooLarge(limit:size:)`` over ``maximumMessageBytes``.
    public mutating func payloads(
        of bytes: [UInt8],
        channel: UInt8,
        sequenced: Bool
    ) throws(PeerWireError)
        -> [[UInt8]]
    {
        guard bytes.count <= Self.maximumMessageBytes else {
            throw .datagramTooLarge(limit: Self.maximumMessageBytes, size: bytes.count)
        }
        let sequence = nextSequence[channel, default: 0]
        nextSequence[channel] = sequence &+ 1
        let whole = maximumPayload - RealtimeDatagram.messageHeaderByteCount(fragment: false)
        var out: [[UInt8]] = []
        if bytes.count <= whole {
            let message = RealtimeDatagram.UnreliableMessage(
                channel: channel,
                sequenced: sequenced,
                sequence: sequence,
                bytes: bytes
            )
            out = [RealtimeDatagram.message(message).encoded]
        } else {
            let piece = maximumPayload - RealtimeDatagram.messageHeaderByteCount(fragment: true)
            let count = (bytes.count + piece - 1) / piece
            let number = nextMessage
            nextMessage &+= 1
            for index in 0..<count {
                let slice = Array(bytes[index * piece..<min(bytes.count, (index + 1) * piece)])
                let fragment = RealtimeDatagram.UnreliableMessage.Fragment(
                    message: number,
                    index: UInt16(index),
                    count: UInt16(count)
                )
                let message = RealtimeDatagram.UnreliableMessage(
                    channel: channel,
                    sequenced: sequenced,
                    sequence: sequence,
                    fragment: fragment,
                    bytes: slice
                )
                out.append(RealtimeDatagram.message(message).encoded)
            }
        }
        return out
    }

    /// A PING sent at `now`, padded so the payload is `size` bytes (at least its 13); its id, and the payload.
    public mutating func ping(now: Duration, size: Int = 0) -> (id: UInt32, payload: [UInt8]) {
        let id = nextPing
        nextPing &+= 1
        counts.pingsSent &+= 1
        path.pinged(now: now)
        let padding = max(0, min(size, maximumPayload) - 13)
        return (id, RealtimeDatagram.ping(id: id, sent: Self.stamp(now), padding: padding).encoded)
    }

    /// An unreliable message went on the TLS stream instead.
    public mutating func sentOnStream() { counts.messagesOnStream &+= 1 }

    /// `count` payloads of `bytes` bytes in all went out.
    public mutating func sent(_ count: Int, bytes: Int) {
        counts.datagramsSent &+= UInt64(count)
        counts.bytesSent &+= UInt64(bytes)
    }

    /// One payload opened at `now`.
    public mutating func received(_ payload: [UInt8], now: Duration) -> Incoming {
        counts.datagramsReceived &+= 1
        counts.bytesReceived &+= UInt64(payload.count)
        switch RealtimeDatagram(parsing: payload) {
        case .message(let message):
            return deliver(message, now: now)
        case .ping(let id, let sent, let padding):
            counts.pingsReceived &+= 1
            // As large as its PING, so both ways carry `--size` bytes: the PONG's count takes 4 of the padding.
            let pong = RealtimeDatagram.pong(
                id: id,
                sent: sent,
                pingsReceived: counts.pingsReceived,
                padding: max(0, padding - 4)
            )
            return .answer(pong.encoded)
        case .pong(let id, let sent, let pingsReceived, _):
            let stamp = Self.stamp(now)
            guard sent <= stamp, id < nextPing else {
                counts.malformed &+= 1
                return .none
            }
            counts.pongsReceived &+= 1
            path.answered()
            if counts.latestAnsweredPing.map({ id >= $0 }) ?? true {
                counts.latestAnsweredPing = id
                counts.peerPingsReceived = pingsReceived
            }
            let measured = Duration.nanoseconds(Int64(stamp - sent))
            roundTrip.add(measured)
            return .answered(id: id, roundTrip: measured)
        case nil:
            counts.malformed &+= 1
            return .none
        }
    }

    /// Time on the wire: nanoseconds since the link's clock started.
    static func stamp(_ now: Duration) -> UInt64 {
        let (seconds, attoseconds) = now.components
        return UInt64(max(0, seconds)) &* 1_000_000_000 &+ UInt64(max(0, attoseconds / 1_000_000_000))
    }

    private mutating func deliver(_ message: RealtimeDatagram.UnreliableMessage, now: Duration) -> Incoming {
        var bytes = message.bytes
        if let fragment = message.fragment {
            let piece = FragmentReassembly.Fragment(
                message: fragment.message,
                index: fragment.index,
                count: fragment.count,
                bytes: message.bytes
            )
            switch reassembly.add(piece, now: now) {
            case .complete(let whole): bytes = whole
            case .pending: return .none
            case .dropped:
                counts.malformed &+= 1
                return .none
            }
        }
        if message.sequenced, !sequenced.admit(message.sequence, on: message.channel) {
            counts.staleDropped &+= 1
            return .none
        }
        return .deliver(bytes, channel: message.channel, sequenced: message.sequenced)
    }
}
