/// A domain name as a list of labels (RFC 1035 §3.1), compared case-insensitively for ASCII only (RFC 6762 §16).
///
/// Labels are raw bytes: mDNS names are UTF-8 and may hold any byte, including dots and spaces inside a label
/// (RFC 6763 §4.1.1). Bytes at or above 0x80 compare exactly, so `Küche` and `KÜCHE` are different names.
public struct DNSName: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The longest label, in bytes (RFC 1035 §2.3.4).
    public static let maxLabelLength = 63
    /// The longest name on the wire, in bytes, counting length bytes and the root (RFC 1035 §2.3.4).
    public static let maxWireLength = 255

    /// The labels, most specific first, without the empty root label.
    public private(set) var labels: [[UInt8]]

    /// The root name.
    public static let root = DNSName(uncheckedLabels: [])

    /// Makes a name from labels, checking the length limits.
    ///
    /// - Throws: ``DNSParseError`` with code `.labelTooLong`, `.nameTooLong` or `.invalidName` (an empty label).
    public init(labels: [[UInt8]]) throws {
        for label in labels {
            guard !label.isEmpty else { throw DNSParseError(.invalidName, offset: 0, "empty label") }
            guard label.count <= Self.maxLabelLength else {
                throw DNSParseError(.labelTooLong, offset: 0, "label of \(label.count) bytes (at most 63)")
            }
        }
        let length = labels.reduce(1) { $0 + $1.count + 1 }
        guard length <= Self.maxWireLength else {
            throw DNSParseError(.nameTooLong, offset: 0, "name of \(length) bytes (at most 255)")
        }
        self.labels = labels
    }

    package init(uncheckedLabels: [[UInt8]]) { self.labels = uncheckedLabels }

    /// Parses a name in presentation form: labels separated by `.`, with `\.`, `\\` and `\DDD` escapes.
    ///
    /// A trailing dot is optional. - Throws: ``DNSParseError`` when an escape or a length is invalid.
    public init(parsing text: String) throws {
        if text == "." {
            self = .root
            return
        }
        var labels: [[UInt8]] = []
        var current: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            switch byte {
            case UInt8(ascii: "."):
                guard !current.isEmpty else { throw DNSParseError(.invalidName, offset: 0, "empty label in '\(text)'") }
                labels.append(current)
                current = []
            case UInt8(ascii: "\\"):
                guard let next = bytes.popFirst() else {
                    throw DNSParseError(.invalidName, offset: 0, "dangling escape in '\(text)'")
                }
                if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) {
                    let digits = [next] + Array(bytes.prefix(2))
                    guard digits.count == 3, digits.allSatisfy({ (48...57).contains($0) }) else {
                        throw DNSParseError(.invalidName, offset: 0, "bad \\DDD escape in '\(text)'")
                    }
                    bytes = bytes.dropFirst(2)
                    let value = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
                    guard value <= 255 else { throw DNSParseError(.invalidName, offset: 0, "bad \\DDD escape") }
                    current.append(UInt8(value))
                } else {
                    current.append(next)
                }
            default:
                current.append(byte)
            }
        }
        if !current.isEmpty { labels.append(current) }
        try self.init(labels: labels)
    }

    /// Makes a name from a string literal; traps on an invalid literal (a programming error).
    public init(stringLiteral value: String) {
        do { try self.init(parsing: value) } catch { preconditionFailure("invalid DNS name literal '\(value)'") }
    }

    /// A name made of one label (taken verbatim, no escapes) in front of this name.
    ///
    /// - Throws: ``DNSParseError`` when the result is too long.
    public func prepending(label: some StringProtocol) throws -> DNSName {
        try DNSName(labels: [Array(label.utf8)] + self.labels)
    }

    /// The name with its first `count` labels removed.
    public func dropping(first count: Int) -> DNSName { DNSName(uncheckedLabels: Array(self.labels.dropFirst(count))) }

    /// The length of this name on the wire without compression.
    public var wireLength: Int { self.labels.reduce(1) { $0 + $1.count + 1 } }

    /// Whether this name ends with `suffix` (case-insensitively).
    public func hasSuffix(_ suffix: DNSName) -> Bool {
        guard suffix.labels.count <= self.labels.count else { return false }
        return zip(self.labels.suffix(suffix.labels.count), suffix.labels).allSatisfy { Self.labelsEqual($0, $1) }
    }

    /// The first label as a string (invalid UTF-8 replaced), e.g. an instance name.
    public var firstLabel: String { self.labels.first.map { String(decoding: $0, as: UTF8.self) } ?? "" }

    /// The presentation form, with `.` and `\` escaped and control bytes as `\DDD`, ending in a dot.
    public var description: String {
        if self.labels.isEmpty { return "." }
        return self.labels.map(Self.escape).joined(separator: ".") + "."
    }

    /// The presentation form without the trailing dot, as people write a host name (`bob.local`); `.` for the root.
    public var hostText: String {
        let text = self.description
        return text.count > 1 && text.hasSuffix(".") ? String(text.dropLast()) : text
    }

    /// Escapes one label for presentation (RFC 6763 §4.3).
    public static func escape(_ label: [UInt8]) -> String {
        var out: [UInt8] = []
        for byte in label {
            switch byte {
            case UInt8(ascii: "."), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0..<0x20, 0x7F:
                out.append(contentsOf: Array("\\\(String(format3: byte))".utf8))
            default:
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func labelsEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (l, r) in zip(lhs, rhs) where asciiLower(l) != asciiLower(r) { return false }
        return true
    }

    @inline(__always) static func asciiLower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    /// The labels with ASCII letters folded to lower case, the key for comparisons.
    public var canonicalLabels: [[UInt8]] { self.labels.map { $0.map(Self.asciiLower) } }

    public static func == (lhs: DNSName, rhs: DNSName) -> Bool {
        lhs.labels.count == rhs.labels.count && zip(lhs.labels, rhs.labels).allSatisfy { labelsEqual($0, $1) }
    }

    public func hash(into hasher: inout Hasher) {
        for label in self.labels {
            hasher.combine(label.count)
            for byte in label { hasher.combine(Self.asciiLower(byte)) }
        }
    }
}

extension String {
    fileprivate init(format3 byte: UInt8) {
        let digits = String(byte)
        self = String(repeating: "0", count: 3 - digits.count) + digits
    }
}
