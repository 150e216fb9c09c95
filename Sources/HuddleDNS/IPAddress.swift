/// An IPv4 address as carried in an A record (RFC 1035 §3.4.1).
public struct IPv4Address: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The address in host byte order (`10.0.0.1` is `0x0A00_0001`).
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Makes an address from four bytes in network order.
    public init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        self.rawValue = UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d)
    }

    /// Parses dotted-quad text; nil when it is not an IPv4 address.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let byte = UInt8(part)
            else { return nil }
            value = value << 8 | UInt32(byte)
        }
        self.rawValue = value
    }

    /// The four bytes in network order.
    public var bytes: [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: self.rawValue >> $0) } }

    /// Whether this is a link-local address (169.254.0.0/16).
    public var isLinkLocal: Bool { self.rawValue >> 16 == 0xA9FE }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { self.bytes.map(String.init).joined(separator: ".") }
}

/// An IPv6 address as carried in an AAAA record (RFC 3596 §2.2).
public struct IPv6Address: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The sixteen bytes in network order.
    public let bytes: [UInt8]

    /// Makes an address from sixteen bytes; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses RFC 4291 §2.2 text (with `::`, without a zone); nil when it is not an IPv6 address.
    public init?(_ text: some StringProtocol) {
        let halves = text.split(separator: "::", maxSplits: 1, omittingEmptySubsequences: false).map({ String($0) })
        guard halves.count <= 2, !text.contains(":::") else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard !group.isEmpty, group.count <= 4, group.allSatisfy(\.isHexDigit),
                    let value = UInt16(group, radix: 16)
                else { return nil }
                result.append(value)
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count < 8 else { return nil }
            all += Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        self.bytes = all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// Whether this is a link-local unicast address (fe80::/10), usable only with its interface.
    public var isLinkLocal: Bool { self.bytes[0] == 0xFE && self.bytes[1] & 0xC0 == 0x80 }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    /// RFC 5952 text: lower case, the longest run of zero groups shortened to `::`.
    public var description: String {
        let groups = (0..<8).map { UInt16(self.bytes[$0 * 2]) << 8 | UInt16(self.bytes[$0 * 2 + 1]) }
        var bestStart = -1
        var bestLength = 1
        var index = 0
        while index < 8 {
            if groups[index] == 0 {
                var end = index
                while end < 8, groups[end] == 0 { end += 1 }
                if end - index > bestLength {
                    bestStart = index
                    bestLength = end - index
                }
                index = end
            } else {
                index += 1
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        if bestStart < 0 { return hex.joined(separator: ":") }
        let head = hex[..<bestStart].joined(separator: ":")
        let tail = hex[(bestStart + bestLength)...].joined(separator: ":")
        return head + "::" + tail
    }
}
