import Foundation
public import HuddlePasteboard
import HuddleWire

/// What clipboard peers say to each other, carried as reliable session messages.
///
/// ```
/// "HCL1"                                  magic and version
/// u8 kind                                 1 sync item, 2 shared item (asks first), 3 answer
/// u64 time   u32 counter                  the item's ClipStamp, big-endian
/// u8 originLength   origin UTF-8          ≤ 64 bytes
/// kind 1, 2: the item as a PasteboardItemArchive (the rest of the message)
/// kind 3:    u8 accepted (0 or 1), then the reason as UTF-8 (the rest, ≤ 512 bytes)
/// ```
///
/// Every length is checked against the bytes present before anything is allocated; anything else is a
/// ``ClipMessageError``.
public enum ClipMessage: Hashable, Sendable {
    /// An item for continuous sync: written to the clipboard at once when it is the newest.
    case sync(ClipStamp, PasteboardItem)
    /// An item shared on purpose (`huddle clip share`): the receiving user is asked first.
    case share(ClipStamp, PasteboardItem)
    /// The answer to the item with this stamp: taken, or refused and why.
    case answer(ClipStamp, accepted: Bool, reason: String)

    static let magic = Array("HCL1".utf8)
    /// The transfer type under which a message too large to go as one session message travels as an in-memory
    /// transfer (chunked, with progress and a SHA-256 check); its data is the encoded message.
    public static let transferType = "application/x-huddle-clip"
    /// Messages up to this size go as one session message (lowest latency); larger ones as a transfer.
    public static let largestDirectMessage = 1024 * 1024
    /// The longest origin (a session instance token) accepted.
    public static let maximumOriginLength = 64
    /// The longest reason text accepted in an answer.
    public static let maximumReasonLength = 512

    /// The message's bytes.
    public func encoded() -> [UInt8] {
        var out = Self.magic
        switch self {
        case .sync(let stamp, let item), .share(let stamp, let item):
            out.append(self.kind)
            Self.append(stamp, to: &out)
            out.append(contentsOf: PasteboardItemArchive(item: item, created: Date(timeIntervalSince1970: 0)).encoded())
        case .answer(let stamp, let accepted, let reason):
            out.append(3)
            Self.append(stamp, to: &out)
            out.append(accepted ? 1 : 0)
            out.append(contentsOf: WireText.utf8Prefix(of: reason, maximumBytes: Self.maximumReasonLength))
        }
        return out
    }

    var kind: UInt8 {
        switch self {
        case .sync: 1
        case .share: 2
        case .answer: 3
        }
    }

    /// The stamp of the item the message is about.
    public var stamp: ClipStamp {
        switch self {
        case .sync(let stamp, _), .share(let stamp, _), .answer(let stamp, _, _): stamp
        }
    }

    static func append(_ stamp: ClipStamp, to out: inout [UInt8]) {
        withUnsafeBytes(of: stamp.time.bigEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: stamp.counter.bigEndian) { out.append(contentsOf: $0) }
        let origin = WireText.utf8Prefix(of: stamp.origin, maximumBytes: Self.maximumOriginLength)
        out.append(UInt8(origin.count))
        out.append(contentsOf: origin)
    }

    /// Decodes a message.
    ///
    /// - Throws: ``ClipMessageError`` for a foreign message, an unknown kind, a truncated or oversized field, or a
    ///   malformed item.
    public init(decoding bytes: [UInt8]) throws(ClipMessageError) {
        guard bytes.count >= 5, Array(bytes[0..<4]) == Self.magic else { throw .notAClipMessage }
        var offset = 5
        func take(_ count: Int) throws(ClipMessageError) -> ArraySlice<UInt8> {
            guard count <= bytes.count - offset else { throw .truncated(at: offset) }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }
        let time = try take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let counter = try take(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let originLength = Int(try take(1).first!)
        guard originLength <= Self.maximumOriginLength else { throw .fieldTooLong("origin", originLength) }
        guard let origin = String(validating: try take(originLength), as: UTF8.self) else {
            throw .invalidText("origin")
        }
        let stamp = ClipStamp(time: time, counter: counter, origin: origin)
        let rest = Data(bytes[offset...])
        switch bytes[4] {
        case 1, 2:
            let item: PasteboardItem
            do {
                item = try PasteboardItemArchive(decoding: rest).item
            } catch {
                throw .malformedItem("\(error)")
            }
            self = bytes[4] == 1 ? .sync(stamp, item) : .share(stamp, item)
        case 3:
            guard let flag = rest.first, flag <= 1 else { throw .truncated(at: offset) }
            guard rest.count - 1 <= Self.maximumReasonLength else { throw .fieldTooLong("reason", rest.count - 1) }
            guard let reason = String(validating: rest.dropFirst(), as: UTF8.self) else { throw .invalidText("reason") }
            self = .answer(stamp, accepted: flag == 1, reason: reason)
        case let kind:
            throw .unknownKind(kind)
        }
    }
}

/// Why bytes are not a clipboard message.
public enum ClipMessageError: Error, Hashable, Sendable, CustomStringConvertible {
    case notAClipMessage
    case unknownKind(UInt8)
    case truncated(at: Int)
    case fieldTooLong(String, Int)
    case invalidText(String)
    case malformedItem(String)

    public var description: String {
        switch self {
        case .notAClipMessage: "not a clipboard message (bad magic)"
        case .unknownKind(let kind): "unknown clipboard message kind \(kind)"
        case .truncated(let offset): "clipboard message truncated at byte \(offset)"
        case .fieldTooLong(let field, let length): "clipboard message \(field) too long (\(length) bytes)"
        case .invalidText(let field): "clipboard message \(field) is not UTF-8"
        case .malformedItem(let detail): "clipboard message item malformed: \(detail)"
        }
    }
}
