/// The table of types Huddle knows under their UTI, MIME and X11 spellings.
///
/// UTIs are Apple's Uniform Type Identifiers (`public.utf8-plain-text`, `public.png`); MIME types follow
/// RFC 2046 with the registrations in the IANA media-types registry; the X11 targets `UTF8_STRING`, `STRING` and
/// `TEXT` come from ICCCM §2.6.2 and the freedesktop.org convention for UTF-8.
enum PasteboardTypeCatalog {
    struct Entry: Sendable {
        /// The UTI spelling.
        var uti: PasteboardType
        /// The MIME spelling, lower case.
        var mime: String
        /// X11 targets carrying this type, best first (offered in this order, asked for in this order).
        var x11: [String]
        /// Other names that mean the same type (looked up case-insensitively).
        var aliases: [String] = []
    }

    static let entries: [Entry] = [
        Entry(
            uti: .utf8PlainText,
            mime: "text/plain;charset=utf-8",
            x11: ["UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "STRING", "TEXT"],
            aliases: ["UTF8_STRING", "text/plain;charset=UTF-8", "public.text", "NSStringPboardType"]
        ),
        Entry(uti: .plainText, mime: "text/plain", x11: ["text/plain", "UTF8_STRING", "STRING", "TEXT"]),
        Entry(uti: .html, mime: "text/html", x11: ["text/html"], aliases: ["Apple HTML pasteboard type"]),
        Entry(uti: .url, mime: "text/uri-list", x11: ["text/uri-list"], aliases: ["text/x-moz-url"]),
        Entry(uti: .png, mime: "image/png", x11: ["image/png"]),
        Entry(uti: .jpeg, mime: "image/jpeg", x11: ["image/jpeg"], aliases: ["image/jpg", "public.jpg"]),
        Entry(uti: .gif, mime: "image/gif", x11: ["image/gif"]),
        Entry(uti: .tiff, mime: "image/tiff", x11: ["image/tiff"]),
        Entry(uti: .rtf, mime: "text/rtf", x11: ["text/rtf"], aliases: ["application/rtf"]),
        Entry(uti: .pdf, mime: "application/pdf", x11: ["application/pdf"]),
    ]

    /// Names whose meaning depends on the X11 encoding rules rather than a MIME type: `STRING` is ISO Latin-1
    /// (ICCCM §2.7.1), `TEXT` lets the owner choose its encoding.
    static let legacyTextTargets: Set<String> = ["STRING", "TEXT", "COMPOUND_TEXT"]

    /// Every name the catalogue lists, exactly as written (UTIs, MIME types, X11 targets, aliases): a small, fixed
    /// set.
    static let spellings: Set<String> = Set(
        entries.flatMap { [$0.uti.rawValue, $0.mime] + $0.x11 + $0.aliases } + legacyTextTargets
    )

    private static let index: [String: Int] = {
        var index: [String: Int] = [:]
        for (position, entry) in entries.enumerated() {
            for name in [entry.uti.rawValue, entry.mime] + entry.aliases {
                let key = normalise(name)
                if index[key] == nil { index[key] = position }
            }
        }
        // `STRING` and `TEXT` are text, but never a better match than `UTF8_STRING`.
        index[normalise("STRING")] = 0
        index[normalise("TEXT")] = 0
        return index
    }()

    static func entry(for type: PasteboardType) -> Entry? {
        self.index[self.normalise(type.rawValue)].map { self.entries[$0] }
    }

    /// Lower case without spaces, with `charset="utf-8"` spelled one way (RFC 2046 §4.1.2: parameter values may be
    /// quoted and charset names are case-insensitive).
    static func normalise(_ name: String) -> String {
        name.lowercased().filter { $0 != " " && $0 != "\"" }
    }
}
