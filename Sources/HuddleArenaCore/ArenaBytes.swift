/// Appends big-endian integers and length-prefixed names; shared by the codec and the digest.
struct ArenaByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func append(_ value: UInt8) { self.bytes.append(value) }

    mutating func append(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) {
            self.bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }

    mutating func append(_ value: Int32) { self.append(UInt32(bitPattern: value)) }

    mutating func append(_ value: UInt64) {
        self.append(UInt32(truncatingIfNeeded: value >> 32))
        self.append(UInt32(truncatingIfNeeded: value))
    }

    /// A one-byte length then the UTF-8 bytes, checked against the limits.
    mutating func appendName(
        _ name: String,
        limits: ArenaCodecLimits,
        allowEmpty: Bool
    ) throws(ArenaCodecError) {
        let utf8 = Array(name.utf8)
        guard utf8.count <= limits.maximumNameBytes else {
            throw ArenaCodecError(
                .nameTooLong,
                offset: 0,
                "name of \(utf8.count) bytes, at most \(limits.maximumNameBytes)"
            )
        }
        guard allowEmpty || !utf8.isEmpty else { throw ArenaCodecError(.emptyName, offset: 0, "empty name") }
        self.append(UInt8(truncatingIfNeeded: utf8.count))
        self.bytes += utf8
    }

    /// A four-byte length then the UTF-8 bytes: for the digest, where nothing is limited.
    mutating func appendLongString(_ string: String) {
        let utf8 = Array(string.utf8)
        self.append(UInt32(truncatingIfNeeded: utf8.count))
        self.bytes += utf8
    }
}

/// Reads what ``ArenaByteWriter`` writes, throwing (never trapping) on short or malformed input.
struct ArenaByteReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { self.offset == self.bytes.count }

    mutating func readUInt8() throws(ArenaCodecError) -> UInt8 {
        guard self.offset < self.bytes.count else {
            throw ArenaCodecError(.truncated, offset: self.offset, "input ended")
        }
        defer { self.offset += 1 }
        return self.bytes[self.offset]
    }

    mutating func readUInt32() throws(ArenaCodecError) -> UInt32 {
        guard self.bytes.count - self.offset >= 4 else {
            throw ArenaCodecError(.truncated, offset: self.offset, "input ended inside a 4-byte integer")
        }
        var value: UInt32 = 0
        for index in self.offset..<(self.offset + 4) { value = value << 8 | UInt32(self.bytes[index]) }
        self.offset += 4
        return value
    }

    mutating func readInt32() throws(ArenaCodecError) -> Int32 { Int32(bitPattern: try self.readUInt32()) }

    mutating func readName(limits: ArenaCodecLimits, allowEmpty: Bool) throws(ArenaCodecError) -> String {
        let start = self.offset
        let length = Int(try self.readUInt8())
        guard length <= limits.maximumNameBytes else {
            throw ArenaCodecError(
                .nameTooLong,
                offset: start,
                "name of \(length) bytes, at most \(limits.maximumNameBytes)"
            )
        }
        guard allowEmpty || length > 0 else { throw ArenaCodecError(.emptyName, offset: start, "empty name") }
        guard self.bytes.count - self.offset >= length else {
            throw ArenaCodecError(.truncated, offset: self.offset, "input ended inside a name")
        }
        let utf8 = self.bytes[self.offset..<(self.offset + length)]
        guard let name = String(validating: utf8, as: UTF8.self) else {
            throw ArenaCodecError(.invalidUTF8, offset: self.offset, "name is not UTF-8")
        }
        self.offset += length
        return name
    }
}
