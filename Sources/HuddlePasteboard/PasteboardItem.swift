public import Foundation

/// One item on a pasteboard: the same content in one or more representations, each keyed by a type.
///
/// A program that copies offers every representation it can produce (an image as PNG and JPEG, a link as URL, HTML
/// and plain text); a program that pastes asks for the one it wants. Representations keep the order they were added
/// in, which is the owner's order of preference.
///
/// ```swift
/// var item = PasteboardItem(text: "Hello")
/// item.setData(Data("<b>Hello</b>".utf8), for: .html)
/// item.data(for: .init("text/html"))   // the HTML, found under its MIME spelling
/// ```
public struct PasteboardItem: Hashable, Sendable {
    /// One representation: a type and its bytes.
    public struct Representation: Hashable, Sendable {
        public var type: PasteboardType
        public var data: Data

        public init(type: PasteboardType, data: Data) {
            self.type = type
            self.data = data
        }
    }

    /// The representations, in the owner's order of preference; at most one per type.
    public private(set) var representations: [Representation]

    /// An item with these representations; a later one of the same type replaces an earlier one.
    public init(_ representations: [Representation] = []) {
        self.representations = []
        for representation in representations {
            self.setData(representation.data, for: representation.type)
        }
    }

    /// An item with one representation.
    public init(type: PasteboardType, data: Data) {
        self.init([Representation(type: type, data: data)])
    }

    /// An item holding UTF-8 text.
    public init(text: String) {
        self.init(type: .utf8PlainText, data: Data(text.utf8))
    }

    /// The types on offer, in order.
    public var types: [PasteboardType] { self.representations.map(\.type) }

    /// Whether the item has no representation.
    public var isEmpty: Bool { self.representations.isEmpty }

    /// The total size of all representations in bytes.
    public var byteCount: Int { self.representations.reduce(0) { $0 + $1.data.count } }

    /// Adds a representation, or replaces the one with exactly this type.
    public mutating func setData(_ data: Data, for type: PasteboardType) {
        if let index = self.representations.firstIndex(where: { $0.type == type }) {
            self.representations[index].data = data
        } else {
            self.representations.append(Representation(type: type, data: data))
        }
    }

    /// Removes the representation with exactly this type.
    public mutating func removeData(for type: PasteboardType) {
        self.representations.removeAll { $0.type == type }
    }

    /// The representation for a type: the exact type first, then an equivalent spelling (`image/png` for
    /// `public.png`), then, for UTF-8 text, plain text.
    public func representation(for type: PasteboardType) -> Representation? {
        if let exact = self.representations.first(where: { $0.type == type }) { return exact }
        if let equivalent = self.representations.first(where: { $0.type.isEquivalent(to: type) }) { return equivalent }
        if type.canonical == .utf8PlainText {
            return self.representations.first { $0.type.canonical == .plainText }
        }
        return nil
    }

    /// The bytes for a type, matched as in ``representation(for:)``.
    public func data(for type: PasteboardType) -> Data? {
        self.representation(for: type)?.data
    }

    /// The text of the item: its UTF-8 or plain-text representation decoded as UTF-8.
    public var string: String? {
        self.data(for: .utf8PlainText).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether a password manager marked the item as secret, so sharing, history and sync should skip it.
    ///
    /// True when ``PasteboardType/passwordManagerHint`` is present with the value `secret` (the KDE and KeePassXC
    /// convention), or when the macOS concealed type is present.
    public var isSecret: Bool {
        if self.representations.contains(where: { $0.type == .concealed }) { return true }
        guard let hint = self.data(for: .passwordManagerHint) else { return false }
        return String(decoding: hint, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "secret"
    }

    /// A copy marked secret with the KDE hint, as password managers do.
    public func markedSecret() -> PasteboardItem {
        var copy = self
        copy.setData(Data("secret".utf8), for: .passwordManagerHint)
        return copy
    }
}
