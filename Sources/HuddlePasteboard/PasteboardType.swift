/// The type of one representation on a pasteboard: a UTI (`public.png`), a MIME type (`image/png`) or an X11
/// target name (`UTF8_STRING`).
///
/// Types are an open set: any name round-trips untouched, so a type Huddle does not know (`x-special/gnome-copied-files`,
/// `com.example.private`) is carried from one pasteboard to another as it came. The known ones map between their
/// three spellings through ``PasteboardTypeCatalog``: ``canonical`` gives the UTI spelling Apple's pasteboards use,
/// ``mimeType`` the spelling Linux desktops use, ``x11Targets`` the X11 selection targets (ICCCM §2.6.2) to offer or
/// ask for, best first.
public struct PasteboardType: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    public var description: String { self.rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// UTF-8 text (`text/plain;charset=utf-8`, X11 `UTF8_STRING`).
    public static let utf8PlainText = Self("public.utf8-plain-text")
    /// Text in an unspecified encoding (`text/plain`); Linux programs write UTF-8 here in practice.
    public static let plainText = Self("public.plain-text")
    /// HTML (`text/html`).
    public static let html = Self("public.html")
    /// A URL (`text/uri-list`; several URLs are separated by CR LF, RFC 2483 §5).
    public static let url = Self("public.url")
    /// A PNG image (`image/png`).
    public static let png = Self("public.png")
    /// A JPEG image (`image/jpeg`).
    public static let jpeg = Self("public.jpeg")
    /// A GIF image (`image/gif`).
    public static let gif = Self("com.compuserve.gif")
    /// A TIFF image (`image/tiff`).
    public static let tiff = Self("public.tiff")
    /// Rich text (`text/rtf`).
    public static let rtf = Self("public.rtf")
    /// A PDF document (`application/pdf`).
    public static let pdf = Self("com.adobe.pdf")
    /// The hint password managers (KeePassXC, KDE) put beside a password: its data is `secret`.
    ///
    /// Sharing and history tools skip items with this hint; see ``PasteboardItem/isSecret``.
    public static let passwordManagerHint = Self("x-kde-passwordManagerHint")
    /// macOS's marker for concealed items (1Password and others), the counterpart of ``passwordManagerHint``.
    public static let concealed = Self("org.nspasteboard.ConcealedType")

    /// The UTI spelling when the type is known under any spelling, otherwise the type itself.
    public var canonical: PasteboardType {
        PasteboardTypeCatalog.entry(for: self)?.uti ?? self
    }

    /// The MIME spelling: the catalogue's for known types, the raw value when it already looks like a MIME type.
    public var mimeType: String? {
        if let entry = PasteboardTypeCatalog.entry(for: self) { return entry.mime }
        return self.rawValue.contains("/") ? self.rawValue : nil
    }

    /// Whether the data is text (UTF-8 or plain text).
    public var isText: Bool {
        let canonical = self.canonical
        return canonical == .utf8PlainText || canonical == .plainText || canonical == .html
    }

    /// The X11 selection targets (ICCCM §2.6.2) that carry this type, best first.
    ///
    /// UTF-8 text is offered as `UTF8_STRING` (the de-facto standard target), `text/plain;charset=utf-8` and
    /// `text/plain`; a type the catalogue does not know is offered under its own name only.
    public var x11Targets: [String] {
        guard let entry = PasteboardTypeCatalog.entry(for: self) else { return [self.rawValue] }
        return entry.x11
    }

    /// Whether two types name the same kind of data under any spelling.
    public func isEquivalent(to other: PasteboardType) -> Bool {
        self == other || self.canonical == other.canonical
    }

    /// The type for a MIME type or X11 target name as offered by another program, in UTI spelling when known.
    public static func fromExternal(_ name: String) -> PasteboardType {
        PasteboardType(name).canonical
    }
}
