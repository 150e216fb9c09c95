/// What a sealed datagram carries from protocol version 3 on: a kind byte, then its fields, integers big-endian
/// (`docs/wire-protocol.md` §8.5). Not sent yet: links of version 2 carry the application's bytes as they are.
///
/// ```
/// MESSAGE 0x00 | channel(1) | flags(1) | sequence(2) | [message(4) | index(2) | count(2)] | bytes
/// PING    0x01 | id(4) | sent(8) | padding
/// PONG    0x02 | id(4) | sent(8) | pings received(4) | padding
/// ```
///
/// Flags: `0x01` sequenced (``SequencedDelivery`` decides), `0x02` a fragment (the bracketed fields follow,
/// ``FragmentReassembly`` rebuilds); other bits are refused. A PONG echoes its PING's `id` and `sent` (the
/// pinger's own clock, so the pinger keeps no state to time it) and says how many PINGs of this link arrived, so
/// the pinger tells loss on the way out from loss on the way back. Padding makes a ping as large as `--size`.
public enum RealtimeDatagram: Hashable, Sendable {
    case message(UnreliableMessage)
    case ping(id: UInt32, sent: UInt64, padding: Int)
    case pong(id: UInt32, sent: UInt64, pingsReceived: UInt32, padding: Int)

    /// One unreliable message, or one fragment of a larger one.
    public struct UnreliableMessage: Hashable, Sendable {
        /// Where a fragment belongs: its message's number, its index and the message's count of fragments.
        public struct Fragment: Hashable, Sendable {
            public var message: UInt32
            public var index: UInt16
            public var count: UInt16

            public init(message: UInt32, index: UInt16, count: UInt16) {
                (self.message, self.index, self.count) = (message, index, count)
            }
        }

        public var channel: UInt8
        /// Delivered only when newer than the newest on its channel (`unreliableSequenced`).
        public var sequenced: Bool
        public var sequence: UInt16
        /// Set when this is one fragment of a larger message.
        public var fragment: Fragment?
        public var bytes: [UInt8]

        public init(channel: UInt8, sequenced: Bool, sequence: UInt16, fragment: Fragment? = nil, bytes: [UInt8]) {
            (self.channel, self.sequenced, self.sequence, self.fragment, self.bytes) =
                (channel, sequenced, sequence, fragment, bytes)
        }
    }

    static let messageKind: UInt8 = 0x00
    static let pingKind: UInt8 = 0x01
    static let pongKind: UInt8 = 0x02
    static let sequencedFlag: UInt8 = 0x01
    static let fragmentFlag: UInt8 = 0x02

    /// The bytes of a MESSAGE before its own: 5, or 13 for a fragment.
    public static func messageHeaderByteCount(fragment: Bool) -> Int { fragment ? 13 : 5 }

    /// The payload bytes, to be sealed.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        switch self {
        case .message(let message):
            let flags = (message.sequenced ? Self.sequencedFlag : 0) | (message.fragment != nil ? Self.fragmentFlag : 0)
            out = [Self.messageKind, message.channel, flags]
            Self.append(UInt64(message.sequence), bytes: 2, to: &out)
            if let fragment = message.fragment {
                Self.append(UInt64(fragment.message), bytes: 4, to: &out)
                Self.append(UInt64(fragment.index), bytes: 2, to: &out)
                Self.append(UInt64(fragment.count), bytes: 2, to: &out)
            }
            out += message.bytes
        case .ping(let id, let sent, let padding):
            out = [Self.pingKind]
            Self.append(UInt64(id), bytes: 4, to: &out)
            Self.append(sent, bytes: 8, to: &out)
            out += [UInt8](repeating: 0, count: padding)
        case .pong(let id, let sent, let received, let padding):
            out = [Self.pongKind]
            Self.append(UInt64(id), bytes: 4, to: &out)
            Self.append(sent, bytes: 8, to: &out)
            Self.append(UInt64(received), bytes: 4, to: &out)
            out += [UInt8](repeating: 0, count: padding)
        }
        return out
    }

    /// Reads an opened payload; nil when it is none of the kinds above, too short for its fields, sets a flag
    /// that is not defined, or names a fragment at or past its count. Padding is not read.
    public init?(parsing payload: [UInt8]) {
        guard let kind = payload.first else { return nil }
        func read(_ offset: Int, _ count: Int) -> UInt64? {
            guard payload.count >= offset + count else { return nil }
            return payload[offset..<offset + count].reduce(0) { $0 << 8 | UInt64($1) }
        }
        switch kind {
        case Self.messageKind:
            guard payload.count >= 5, payload[2] & ~(Self.sequencedFlag | Self.fragmentFlag) == 0,
                let sequence = read(3, 2)
            else { return nil }
            let flags = payload[2]
            var message = UnreliableMessage(
                channel: payload[1],
                sequenced: flags & Self.sequencedFlag != 0,
                sequence: UInt16(sequence),
                bytes: []
            )
            var start = 5
            if flags & Self.fragmentFlag != 0 {
                guard let number = read(5, 4), let index = read(9, 2), let count = read(11, 2), index < count else {
                    return nil
                }
                message.fragment = .init(message: UInt32(number), index: UInt16(index), count: UInt16(count))
                start = 13
            }
            message.bytes = Array(payload[start...])
            self = .message(message)
        case Self.pingKind:
            guard let id = read(1, 4), let sent = read(5, 8) else { return nil }
            self = .ping(id: UInt32(id), sent: sent, padding: payload.count - 13)
        case Self.pongKind:
            guard let id = read(1, 4), let sent = read(5, 8), let received = read(13, 4) else { return nil }
            self = .pong(id: UInt32(id), sent: sent, pingsReceived: UInt32(received), padding: payload.count - 17)
        default:
            return nil
        }
    }

    static func append(_ value: UInt64, bytes: Int, to out: inout [UInt8]) {
        for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
