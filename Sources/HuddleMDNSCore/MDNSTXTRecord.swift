/// DNS-SD TXT data as ordered key/value pairs (RFC 6763 §6).
///
/// Keys are printable ASCII without `=`, compared case-insensitively; a key without `=` is a boolean attribute
/// (value nil); a value is opaque bytes after the first `=`. When decoding, the first occurrence of a key wins and
/// strings starting with `=` are ignored (§6.4).
public struct MDNSTXTRecord: Hashable, Sendable, CustomStringConvertible {
    /// The entries in wire order.
    public private(set) var entries: [(key: String, value: [UInt8]?)]

    public init() { self.entries = [] }

    /// Makes a record from `key=value` strings as typed on a command line; a string without `=` is a boolean.
    ///
    /// - Throws: ``MDNSError`` with code `.invalidTXT` for an empty or non-printable key or a string over 255 bytes.
    public init(arguments: [String]) throws {
        self.init()
        for argument in arguments {
            if let equals = argument.firstIndex(of: "=") {
                try self.set(String(argument[..<equals]), Array(argument[argument.index(after: equals)...].utf8))
            } else {
                try self.set(argument, nil)
            }
        }
    }

    /// Decodes the strings of a TXT record.
    public init(strings: [[UInt8]]) {
        self.init()
        for string in strings where !string.isEmpty && string.first != UInt8(ascii: "=") {
            let equals = string.firstIndex(of: UInt8(ascii: "="))
            let key = String(decoding: string[..<(equals ?? string.endIndex)], as: UTF8.self)
            guard !self.entries.contains(where: { $0.key.lowercased() == key.lowercased() }) else { continue }
            self.entries.append((key, equals.map { Array(string[($0 + 1)...]) }))
        }
    }

    /// Sets a key, replacing an earlier value of the same key (compared case-insensitively).
    public mutating func set(_ key: String, _ value: [UInt8]?) throws {
        let keyBytes = Array(key.utf8)
        guard !keyBytes.isEmpty, keyBytes.allSatisfy({ (0x20...0x7E).contains($0) && $0 != UInt8(ascii: "=") })
        else {
            throw MDNSError(.invalidTXT, "TXT key '\(key)' must be 1 or more printable ASCII characters without '='")
        }
        guard keyBytes.count + (value.map { $0.count + 1 } ?? 0) <= 255 else {
            throw MDNSError(.invalidTXT, "TXT entry '\(key)' is longer than 255 bytes")
        }
        self.entries.removeAll { $0.key.lowercased() == key.lowercased() }
        self.entries.append((key, value))
    }

    /// The value of a key: nil when absent, `.some(nil)` for a boolean attribute.
    public subscript(key: String) -> [UInt8]?? {
        guard let entry = self.entries.first(where: { $0.key.lowercased() == key.lowercased() }) else { return nil }
        return .some(entry.value)
    }

    /// The strings of the TXT record; none for an empty record, which goes on the wire as a single zero byte
    /// (§6.1) and decodes back to no strings.
    public var strings: [[UInt8]] {
        self.entries.map { entry in Array(entry.key.utf8) + (entry.value.map { [UInt8(ascii: "=")] + $0 } ?? []) }
    }

    public var description: String {
        self.entries.map { entry in
            entry.key + (entry.value.map { "=" + String(decoding: $0, as: UTF8.self) } ?? "")
        }.joined(separator: " ")
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.strings == rhs.strings }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.strings) }
}
