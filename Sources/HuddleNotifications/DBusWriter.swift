import HuddleErrors
/// Marshals values into the little-endian wire format (D-Bus Specification, "Marshaling (Wire Format)"): each
/// value on its type's alignment from the start of the message, padding bytes zero.
struct DBusWriter {
    /// The longest array the specification allows (2^26 bytes).
    static let maximumArrayLength = 1 << 26

    private(set) var bytes: [UInt8] = []

    mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    mutating func write(_ value: DBusValue) throws(NotificationError) {
        pad(to: value.type.alignment)
        switch value {
        case .byte(let number): bytes.append(number)
        case .boolean(let flag): appendInteger(UInt32(flag ? 1 : 0))
        case .int16(let number): appendInteger(number)
        case .uint16(let number): appendInteger(number)
        case .int32(let number): appendInteger(number)
        case .uint32(let number), .unixFD(let number): appendInteger(number)
        case .int64(let number): appendInteger(number)
        case .uint64(let number): appendInteger(number)
        case .double(let number): appendInteger(number.bitPattern)
        case .string(let text): try writeString(text)
        case .objectPath(let path):
            guard DBusNames.isObjectPath(path) else {
                throw NotificationError(.unmarshalable, "\"\(path)\" is not a valid object path")
            }
            try writeString(path)
        case .signature(let text): try writeSignature(text)
        case .variant(let inner):
            try writeSignature(inner.type.signature)
            try write(inner)
        case .array(let element, let elements): try writeArray(element, elements)
        case .structure(let fields):
            for field in fields { try write(field) }
        case .dictEntry(let key, let value):
            try write(key)
            try write(value)
        }
    }

    private mutating func writeArray(_ element: DBusType, _ elements: [DBusValue]) throws(NotificationError) {
        let lengthAt = bytes.count
        appendInteger(UInt32(0))
        pad(to: element.alignment)
        let start = bytes.count
        for value in elements {
            guard value.type == element else {
                throw NotificationError(
                    .unmarshalable,
                    "an array of \(element.signature) holds a \(value.type.signature)"
                )
            }
            try write(value)
        }
        let length = bytes.count - start
        guard length <= Self.maximumArrayLength else {
            throw NotificationError(.unmarshalable, "an array of \(length) bytes, over 2^26")
        }
        withUnsafeBytes(of: UInt32(length).littleEndian) { bytes.replaceSubrange(lengthAt..<lengthAt + 4, with: $0) }
    }

    private mutating func writeString(_ text: String) throws(NotificationError) {
        let utf8 = Array(text.utf8)
        guard !utf8.contains(0) else { throw NotificationError(.unmarshalable, "a string with a NUL byte") }
        appendInteger(UInt32(utf8.count))
        bytes += utf8
        bytes.append(0)
    }

    private mutating func writeSignature(_ text: String) throws(NotificationError) {
        let utf8 = Array(text.utf8)
        guard utf8.count <= DBusSignature.maximumLength else {
            throw NotificationError(.unmarshalable, "a signature of \(utf8.count) bytes, over 255")
        }
        bytes.append(UInt8(utf8.count))
        bytes += utf8
        bytes.append(0)
    }

    private mutating func appendInteger<T: FixedWidthInteger>(_ number: T) {
        withUnsafeBytes(of: number.littleEndian) { bytes += $0 }
    }
}
