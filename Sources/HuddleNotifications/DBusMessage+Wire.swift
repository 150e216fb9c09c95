public import HuddleErrors
/// A message to and from bytes (D-Bus Specification, "Message Format"): the fixed 12 bytes (byte order, type,
/// flags, version 1, body length, serial), the header fields as `a(yv)`, padding to 8, the body.
extension DBusMessage {
    /// The largest message read here: notifications are small, far below the specification's 128 MiB.
    public static let maximumLength = 4 << 20
    /// The bytes needed to know a message's whole length.
    public static let prefixLength = 16

    /// The length of the message that `prefix` (at least ``prefixLength`` bytes) starts.
    public static func length(ofMessageStartingWith prefix: some Collection<UInt8>) throws(NotificationError) -> Int {
        var reader = DBusReader(Array(prefix.prefix(prefixLength)), littleEndian: true)
        let order = try reader.integer(UInt8.self)
        guard order == UInt8(ascii: "l") || order == UInt8(ascii: "B") else {
            throw NotificationError(.malformed, "a message whose byte order is \(order), neither l nor B")
        }
        reader = DBusReader(reader.bytes, littleEndian: order == UInt8(ascii: "l"), offset: 4)
        let bodyLength = Int(try reader.integer(UInt32.self))
        _ = try reader.integer(UInt32.self)
        let fieldsLength = Int(try reader.integer(UInt32.self))
        let total = prefixLength + (fieldsLength + 7) / 8 * 8 + bodyLength
        guard total <= maximumLength else {
            throw NotificationError(.malformed, "a message of \(total) bytes, over \(maximumLength)")
        }
        return total
    }

    /// The message's bytes, little-endian. The serial must be set.
    public func encoded() throws(NotificationError) -> [UInt8] {
        guard serial != 0 else { throw NotificationError(.unmarshalable, "a message without a serial") }
        var bodyWriter = DBusWriter()
        for value in body { try bodyWriter.write(value) }
        var writer = DBusWriter()
        for byte in [UInt8(ascii: "l"), kind.rawValue, flags.rawValue, 1] { try writer.write(.byte(byte)) }
        try writer.write(.uint32(UInt32(bodyWriter.bytes.count)))
        try writer.write(.uint32(serial))
        try writer.write(.array(.structure([.byte, .variant]), headerFields))
        writer.pad(to: 8)
        let message = writer.bytes + bodyWriter.bytes
        guard message.count <= Self.maximumLength else {
            throw NotificationError(.unmarshalable, "a message of \(message.count) bytes, over \(Self.maximumLength)")
        }
        return message
    }

    private var headerFields: [DBusValue] {
        var fields: [(DBusHeaderField, DBusValue)] = []
        if let path { fields.append((.path, .objectPath(path))) }
        if let interface { fields.append((.interface, .string(interface))) }
        if let member { fields.append((.member, .string(member))) }
        if let errorName { fields.append((.errorName, .string(errorName))) }
        if let replySerial { fields.append((.replySerial, .uint32(replySerial))) }
        if let destination { fields.append((.destination, .string(destination))) }
        if let sender { fields.append((.sender, .string(sender))) }
        if !body.isEmpty { fields.append((.signature, .signature(signature))) }
        return fields.map { .structure([.byte($0.0.rawValue), .variant($0.1)]) }
    }

    /// The message `bytes` hold, exactly: a length that disagrees, an unknown type, a field of the wrong type, a
    /// missing required field or a body that does not match its signature is refused.
    public init(decoding bytes: [UInt8]) throws(NotificationError) {
        guard bytes.count >= Self.prefixLength, try Self.length(ofMessageStartingWith: bytes) == bytes.count else {
            throw NotificationError(.malformed, "a message whose lengths do not add up to its \(bytes.count) bytes")
        }
        var reader = DBusReader(bytes, littleEndian: bytes[0] == UInt8(ascii: "l"), offset: 1)
        guard let kind = Kind(rawValue: try reader.integer(UInt8.self)) else {
            throw NotificationError(.malformed, "a message of an unknown type")
        }
        self.init(kind: kind)
        flags = Flags(rawValue: try reader.integer(UInt8.self))
        guard try reader.integer(UInt8.self) == 1 else {
            throw NotificationError(.malformed, "a message of another protocol version than 1")
        }
        let bodyLength = Int(try reader.integer(UInt32.self))
        serial = try reader.integer(UInt32.self)
        guard serial != 0 else { throw NotificationError(.malformed, "a message with serial 0") }
        guard case .array(_, let fields) = try reader.read(.array(.structure([.byte, .variant]))) else {
            throw NotificationError(.malformed, "no header fields")
        }
        var bodySignature = ""
        for field in fields { try apply(field, signature: &bodySignature) }
        guard hasRequiredFields else {
            throw NotificationError(.malformed, "a \(kind) message without the header fields it requires")
        }
        try reader.skipPadding(to: 8)
        guard bytes.count - reader.offset == bodyLength else {
            throw NotificationError(.malformed, "a body length that disagrees with the message's")
        }
        for type in try DBusSignature.parse(bodySignature) { body.append(try reader.read(type)) }
        guard reader.isAtEnd else { throw NotificationError(.malformed, "bytes after the body's last value") }
    }

    /// One `(yv)` header field taken in; unknown codes are ignored, as the specification asks.
    private mutating func apply(_ field: DBusValue, signature: inout String) throws(NotificationError) {
        guard case .structure(let parts) = field, case .byte(let code) = parts[0], case .variant(let value) = parts[1]
        else { throw NotificationError(.malformed, "a header field that is not (yv)") }
        guard let known = DBusHeaderField(rawValue: code) else { return }
        guard value.type == known.type else {
            throw NotificationError(.malformed, "header field \(code) of type \(value.type.signature)")
        }
        switch (known, value) {
        case (.path, .objectPath(let text)): path = text
        case (.interface, .string(let text)): interface = text
        case (.member, .string(let text)): member = text
        case (.errorName, .string(let text)): errorName = text
        case (.replySerial, .uint32(let number)): replySerial = number
        case (.destination, .string(let text)): destination = text
        case (.sender, .string(let text)): sender = text
        case (.signature, .signature(let text)): signature = text
        default: break
        }
    }
}
