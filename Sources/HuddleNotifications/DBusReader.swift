import HuddleErrors
/// Unmarshals values from the wire format (D-Bus Specification, "Marshaling (Wire Format)") in either byte
/// order, bounded: every length is checked against the bytes there are, padding must be zero, strings valid
/// UTF-8 without NUL, booleans 0 or 1, and containers (variants too) nested at most 64 deep.
struct DBusReader {
    static let maximumDepth = 64

    let bytes: [UInt8]
    let littleEndian: Bool
    private(set) var offset: Int
    /// Where reading must stop (the end of the body, or of an array being read).
    var limit: Int

    init(_ bytes: [UInt8], littleEndian: Bool, offset: Int = 0) {
        self.bytes = bytes
        self.littleEndian = littleEndian
        self.offset = offset
        limit = bytes.count
    }

    var isAtEnd: Bool { offset >= limit }

    mutating func skipPadding(to alignment: Int) throws(NotificationError) {
        let padded = (offset + alignment - 1) / alignment * alignment
        guard padded <= limit else { throw NotificationError(.malformed, "padding runs past the end") }
        guard bytes[offset..<padded].allSatisfy({ $0 == 0 }) else {
            throw NotificationError(.malformed, "padding that is not zero at byte \(offset)")
        }
        offset = padded
    }

    mutating func read(_ type: DBusType, depth: Int = 0) throws(NotificationError) -> DBusValue {
        try skipPadding(to: type.alignment)
        switch type {
        case .byte: return .byte(try integer(UInt8.self))
        case .boolean:
            let number = try integer(UInt32.self)
            guard number <= 1 else { throw NotificationError(.malformed, "a boolean of \(number)") }
            return .boolean(number == 1)
        case .int16: return .int16(try integer(Int16.self))
        case .uint16: return .uint16(try integer(UInt16.self))
        case .int32: return .int32(try integer(Int32.self))
        case .uint32: return .uint32(try integer(UInt32.self))
        case .unixFD: return .unixFD(try integer(UInt32.self))
        case .int64: return .int64(try integer(Int64.self))
        case .uint64: return .uint64(try integer(UInt64.self))
        case .double: return .double(Double(bitPattern: try integer(UInt64.self)))
        case .string: return .string(try text(length: Int(try integer(UInt32.self))))
        case .objectPath:
            let path = try text(length: Int(try integer(UInt32.self)))
            guard DBusNames.isObjectPath(path) else { throw NotificationError(.malformed, "an invalid object path") }
            return .objectPath(path)
        case .signature:
            let signature = try text(length: Int(try integer(UInt8.self)))
            _ = try DBusSignature.parse(signature)
            return .signature(signature)
        default:
            guard depth < Self.maximumDepth else { throw NotificationError(.malformed, "values nested over 64 deep") }
            return try container(type, depth: depth + 1)
        }
    }

    private mutating func container(_ type: DBusType, depth: Int) throws(NotificationError) -> DBusValue {
        switch type {
        case .variant:
            let signature = try text(length: Int(try integer(UInt8.self)))
            return .variant(try read(try DBusSignature.single(signature), depth: depth))
        case .array(let element):
            let length = Int(try integer(UInt32.self))
            guard length <= DBusWriter.maximumArrayLength else {
                throw NotificationError(.malformed, "an array of \(length) bytes, over 2^26")
            }
            try skipPadding(to: element.alignment)
            guard length <= limit - offset else { throw NotificationError(.malformed, "an array runs past the end") }
            let outer = limit
            limit = offset + length
            defer { limit = outer }
            var elements: [DBusValue] = []
            while !isAtEnd { elements.append(try read(element, depth: depth)) }
            guard offset == limit else { throw NotificationError(.malformed, "an array's last element overruns it") }
            return .array(element, elements)
        case .structure(let fields):
            var values: [DBusValue] = []
            for field in fields { values.append(try read(field, depth: depth)) }
            return .structure(values)
        case .dictEntry(let key, let value):
            return .dictEntry(try read(key, depth: depth), try read(value, depth: depth))
        default:
            return try read(type, depth: depth)
        }
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(NotificationError) -> T {
        let size = MemoryLayout<T>.size
        guard size <= limit - offset else { throw NotificationError(.malformed, "a number runs past the end") }
        var number: T = 0
        for index in 0..<size {
            let byte = T(truncatingIfNeeded: bytes[offset + index])
            number |= byte << ((littleEndian ? index : size - 1 - index) * 8)
        }
        offset += size
        return number
    }

    /// `length` bytes of UTF-8 and the NUL after them.
    private mutating func text(length: Int) throws(NotificationError) -> String {
        guard length < limit - offset else { throw NotificationError(.malformed, "a string runs past the end") }
        let utf8 = bytes[offset..<offset + length]
        guard bytes[offset + length] == 0, !utf8.contains(0) else {
            throw NotificationError(.malformed, "a string not ended by its one NUL")
        }
        guard let string = String(validating: utf8, as: UTF8.self) else {
            throw NotificationError(.malformed, "a string that is not UTF-8")
        }
        offset += length + 1
        return string
    }
}
