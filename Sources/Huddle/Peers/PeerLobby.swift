import HuddleBase

/// A few key–value pairs a session advertises beside its name — players, capacity, a game's version — so that a
/// browser sees them before it connects: a game's lobby (`docs/wire-protocol.md` §1, "Lobby").
///
/// It travels in the advert's TXT record (RFC 6763 §6), so it is bounded to keep the record in one packet: at most
/// ``maximumEntries`` entries, ``maximumByteCount`` bytes in all as TXT strings (`key=value` with a length byte,
/// RFC 6763 §6.1; §6.2 keeps a whole record well under 1,300 bytes). Keys (§6.4) are 3 to 9 characters of
/// lowercase ASCII letters, digits and `-`, starting with a letter: keys of one or two characters are the
/// protocol's (`v`, `id`, `in`, `m`). Values are UTF-8 text without control characters.
///
/// What a peer advertises is a hint like its name, not a proof: ``received(_:)`` keeps only entries that follow
/// these rules, with values cleaned for display.
public struct PeerLobby: Hashable, Sendable, CustomStringConvertible {
    public static let maximumEntries = 16
    /// All entries as TXT strings, length bytes included.
    public static let maximumByteCount = 400

    /// The entries, by key.
    public private(set) var values: [String: String] = [:]

    public init() {}

    /// A lobby of `values`, each checked as ``set(_:to:)`` does.
    public init(_ values: [String: String]) throws(PeerLobbyError) {
        for key in values.keys.sorted() { try set(key, to: values[key]) }
    }

    public var isEmpty: Bool { values.isEmpty }

    public subscript(key: String) -> String? { values[key] }

    /// Sets `key` to `value`, or removes it when `value` is nil; the lobby is unchanged when this throws.
    public mutating func set(_ key: String, to value: String?) throws(PeerLobbyError) {
        guard Self.isValidKey(key) else { throw .invalidKey(key) }
        guard let value else {
            values[key] = nil
            return
        }
        guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .controlCharacter(key)
        }
        // One TXT string holds at most 255 bytes (RFC 6763 §6.1).
        guard key.utf8.count + 1 + value.utf8.count <= 255 else { throw .valueTooLong(key) }
        var next = values
        next[key] = value
        guard next.count <= Self.maximumEntries else { throw .tooManyEntries }
        let size = Self.byteCount(of: next)
        guard size <= Self.maximumByteCount else { throw .tooLarge(size) }
        values = next
    }

    /// Applies `KEY=VALUE` (sets) or `KEY=` (removes), as `--lobby` and chat's `/lobby` take it.
    public mutating func apply(_ assignment: String) throws(PeerLobbyError) {
        guard let equals = assignment.firstIndex(of: "=") else { throw .notAnAssignment(assignment) }
        let value = String(assignment[assignment.index(after: equals)...])
        try set(String(assignment[..<equals]), to: value.isEmpty ? nil : value)
    }

    /// The entries sorted by key: the order they are advertised and shown in.
    public var entries: [(key: String, value: String)] {
        values.keys.sorted().map { ($0, values[$0]!) }
    }

    /// `capacity=4 players=2`.
    public var description: String { entries.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }

    /// The lobby in a TXT record someone advertised: keys read in lowercase (they are case-insensitive, RFC 6763
    /// §6.4), entries that break the rules left out (a protocol key, a key of another shape, a value that is not
    /// UTF-8), values cleaned for display, and only as many kept as the bounds allow, by key order.
    public static func received(_ entries: [(key: String, value: [UInt8]?)]) -> PeerLobby {
        var lobby = PeerLobby()
        for (key, bytes) in entries.map({ ($0.key.lowercased(), $0.value) }).sorted(by: { $0.0 < $1.0 }) {
            guard lobby[key] == nil, let bytes, let text = String(validating: bytes, as: UTF8.self) else { continue }
            try? lobby.set(key, to: DisplayText.sanitized(text, limit: 255))
        }
        return lobby
    }

    /// 3–9 characters: a lowercase letter, then lowercase letters, digits and `-`.
    static func isValidKey(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard (3...9).contains(bytes.count), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0]) else {
            return false
        }
        return bytes.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "-")
        }
    }

    /// The TXT bytes of `values`: each `key=value` with its length byte.
    static func byteCount(of values: [String: String]) -> Int {
        values.reduce(0) { $0 + 1 + $1.key.utf8.count + 1 + $1.value.utf8.count }
    }
}

/// Why a lobby entry was refused.
public enum PeerLobbyError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidKey(String)
    case controlCharacter(String)
    case valueTooLong(String)
    case tooManyEntries
    case tooLarge(Int)
    case notAnAssignment(String)

    public var description: String {
        switch self {
        case .invalidKey(let key):
            "lobby key '\(key)' is not 3 to 9 characters of lowercase letters, digits and '-' starting with a letter"
        case .controlCharacter(let key): "the value of lobby key '\(key)' has a control character"
        case .valueTooLong(let key): "'\(key)=' and its value take more than the 255 bytes of one TXT string"
        case .tooManyEntries: "a lobby holds at most \(PeerLobby.maximumEntries) entries"
        case .tooLarge(let size):
            "the lobby would take \(size) bytes of the advert, over its \(PeerLobby.maximumByteCount)"
        case .notAnAssignment(let text): "'\(text)' is not KEY=VALUE (KEY= removes KEY)"
        }
    }
}
