import Foundation

/// `huddle:` URLs: a small item carried in the URL itself, or a reference to a named pasteboard.
///
/// ```
/// huddle:item?type=public.utf8-plain-text&data=SGVsbG8        one or more type/data pairs, in order
/// huddle:item?name=com.example.handoff&clear=1                 the item is in a named pasteboard
/// ```
///
/// `data` is base64url without padding (RFC 4648 §5); types are percent-encoded (RFC 3986 §2.1). The URL is an
/// opaque URI (RFC 3986 §3: scheme, path, query), so it survives `xdg-open`, browsers and desktop files.
public struct HuddleURL: Hashable, Sendable {
    /// What a URL carries.
    public enum Content: Hashable, Sendable {
        /// The item itself.
        case item(PasteboardItem)
        /// The name of a named pasteboard holding the item; `clear` asks the receiver to read and clear it.
        case reference(name: String, clear: Bool)
    }

    public static let scheme = "huddle"

    /// The default limit on a URL's length: 100 000 characters.
    ///
    /// Linux refuses a single command-line argument over 128 KiB (`MAX_ARG_STRLEN`), and a URL handed to a
    /// handler travels as one argument; the margin leaves room for the rest of the command line. That allows
    /// payloads up to about 73 KB; larger items go through a named pasteboard.
    public static let defaultMaximumLength = 100_000

    public var content: Content

    public init(_ content: Content) {
        self.content = content
    }

    /// The URL's text.
    ///
    /// - Throws: ``PasteboardError/Code/tooLarge`` when it would exceed `maximumLength` (use a named pasteboard
    ///   and a ``Content/reference(name:clear:)``), `.invalidName` for a bad reference.
    public func encoded(maximumLength: Int = Self.defaultMaximumLength) throws -> String {
        var query: [String] = []
        switch self.content {
        case .item(let item):
            guard !item.isEmpty else { throw PasteboardError(.invalidInput, "cannot encode an item with no data") }
            for representation in item.representations {
                query.append("type=" + Self.percentEncoded(representation.type.rawValue))
                query.append("data=" + Base64URL.encode(representation.data))
            }
        case .reference(let name, let clear):
            try NamedPasteboardStore.validate(name)
            query.append("name=" + name)
            if clear { query.append("clear=1") }
        }
        let text = "\(Self.scheme):item?" + query.joined(separator: "&")
        guard text.utf8.count <= maximumLength else {
            throw PasteboardError(
                .tooLarge,
                "the item needs a \(text.utf8.count)-character URL, over the \(maximumLength) limit: "
                    + "store it in a named pasteboard and send a reference instead"
            )
        }
        return text
    }

    /// Decodes a `huddle:` URL.
    ///
    /// - Throws: ``PasteboardError/Code/malformedURL`` saying what is wrong, `.tooLarge` over `maximumLength`.
    public init(parsing text: String, maximumLength: Int = Self.defaultMaximumLength) throws {
        guard text.utf8.count <= maximumLength else {
            throw PasteboardError(
                .tooLarge,
                "the URL has \(text.utf8.count) characters, over the \(maximumLength) limit"
            )
        }
        guard let colon = text.firstIndex(of: ":"), text[..<colon].lowercased() == Self.scheme else {
            throw PasteboardError(.malformedURL, "not a huddle: URL (it must start with \"huddle:\")")
        }
        var rest = text[text.index(after: colon)...]
        if rest.hasPrefix("//") { rest = rest.dropFirst(2) }  // huddle://item?… as some programs write it
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.first == "item" else {
            throw PasteboardError(
                .malformedURL,
                "unknown huddle: URL kind \"\(parts.first ?? "")\" (expected \"item\")"
            )
        }
        guard parts.count == 2, !parts[1].isEmpty else {
            throw PasteboardError(.malformedURL, "the huddle: URL has no query (type and data, or name)")
        }
        self.content = try Self.parseQuery(parts[1])
    }

    private static func parseQuery(_ query: Substring) throws -> Content {
        var item = PasteboardItem()
        var pendingType: PasteboardType?
        var name: String?
        var clear = false
        for field in query.split(separator: "&") {
            let pair = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = pair[0]
            let value = pair.count == 2 ? pair[1] : ""
            switch key {
            case "type":
                guard pendingType == nil else { throw PasteboardError(.malformedURL, "type without data before it") }
                guard let type = percentDecoded(value), !type.isEmpty else {
                    throw PasteboardError(.malformedURL, "empty or badly percent-encoded type \"\(value)\"")
                }
                pendingType = PasteboardType(type)
            case "data":
                guard let type = pendingType else {
                    throw PasteboardError(.malformedURL, "data without a type before it")
                }
                guard let data = Base64URL.decode(value) else {
                    throw PasteboardError(.malformedURL, "the data for \(type) is not valid base64url")
                }
                item.setData(data, for: type)
                pendingType = nil
            case "name":
                name = String(value)
            case "clear":
                clear = value == "1" || value == "true"
            default:
                continue  // unknown fields are ignored, so later versions can add some
            }
        }
        if let pendingType { throw PasteboardError(.malformedURL, "type \(pendingType) has no data") }
        if let name {
            guard item.isEmpty else {
                throw PasteboardError(.malformedURL, "a URL has either data or a name, not both")
            }
            try NamedPasteboardStore.validate(name)
            return .reference(name: name, clear: clear)
        }
        guard !item.isEmpty else { throw PasteboardError(.malformedURL, "the huddle: URL carries no data and no name") }
        return .item(item)
    }

    /// Percent-encodes every byte of the UTF-8 but RFC 3986 unreserved characters (§2.1, §2.3), in upper case.
    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Undoes percent-encoding (RFC 3986 §2.1); nil for a `%` not followed by two hex digits, or bytes that are
    /// not UTF-8 once decoded. `+` stays `+`.
    static func percentDecoded(_ text: Substring) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            guard let high = bytes.next().flatMap(hexValue), let low = bytes.next().flatMap(hexValue) else {
                return nil
            }
            out.append(high << 4 | low)
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
