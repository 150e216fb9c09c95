import Crypto
import Foundation
public import HuddlePasteboard
import HuddleWire

/// Which clipboard items may leave (or enter) this machine: never secret ones, only the chosen kinds of data, and
/// none larger than the cap.
public struct ClipboardItemFilter: Hashable, Sendable {
    /// A kind of clipboard data, as named on the command line (`--types text,image`).
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        /// Text: plain, UTF-8, HTML, RTF, any `text/…`.
        case text
        /// Images: PNG, JPEG, GIF, TIFF, any `image/…`.
        case image
        /// URLs (`text/uri-list`, `public.url`).
        case url
        /// Everything else (PDF, application types).
        case other

        /// The kind of data a type carries.
        public init(of type: PasteboardType) {
            let mime = type.mimeType ?? ""
            if type.canonical == .url || mime == "text/uri-list" {
                self = .url
            } else if type.isText || type.canonical == .rtf || mime.hasPrefix("text/") {
                self = .text
            } else if mime.hasPrefix("image/") {
                self = .image
            } else {
                self = .other
            }
        }
    }

    /// Why an item is not shared or taken.
    public enum Verdict: Hashable, Sendable {
        /// Share or take this item: the original with only the allowed representations.
        case admit(PasteboardItem)
        /// Refused; the reason is a sentence fragment for the user ("it is marked secret by a password manager").
        case refuse(String)
    }

    /// The default size cap: 16 MiB.
    public static let defaultMaximumBytes = 16 * 1024 * 1024

    public var kinds: Set<Kind>
    public var maximumBytes: Int

    public init(kinds: Set<Kind> = Set(Kind.allCases), maximumBytes: Int = Self.defaultMaximumBytes) {
        self.kinds = kinds
        self.maximumBytes = maximumBytes
    }

    /// Parses a `--types` list such as `text,image`.
    ///
    /// - Throws: ``ClipboardSyncError/badTypeList(_:)`` naming the kinds that exist.
    public static func kinds(parsing list: String) throws -> Set<Kind> {
        var kinds = Set<Kind>()
        for word in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            guard let kind = Kind(rawValue: word) else { throw ClipboardSyncError.badTypeList(word) }
            kinds.insert(kind)
        }
        guard !kinds.isEmpty else { throw ClipboardSyncError.badTypeList(list) }
        return kinds
    }

    /// Whether `item` may be shared or taken, and in which form.
    public func admit(_ item: PasteboardItem) -> Verdict {
        if item.isSecret { return .refuse("it is marked secret by a password manager") }
        let kept = item.representations.filter { self.kinds.contains(Kind(of: $0.type)) }
        guard !kept.isEmpty else {
            let offered = item.types.map(\.description).joined(separator: ", ")
            let allowed = Kind.allCases.filter(self.kinds.contains).map(\.rawValue).joined(separator: ",")
            return .refuse("its types (\(offered)) are not among those synced (\(allowed))")
        }
        let admitted = PasteboardItem(kept)
        guard admitted.byteCount <= self.maximumBytes else {
            return .refuse(
                "it is \(ByteCountText.describe(admitted.byteCount)), over the "
                    + "\(ByteCountText.describe(self.maximumBytes)) limit"
            )
        }
        return .admit(admitted)
    }

    /// A SHA-256 digest of an item's content (types and bytes, in type order), in hex: equal for equal content.
    public static func digest(of item: PasteboardItem) -> String {
        var hasher = SHA256()
        for representation in item.representations.sorted(by: { $0.type.canonical < $1.type.canonical }) {
            let type = Array(representation.type.canonical.rawValue.utf8)
            hasher.update(data: Self.lengthPrefix(type.count) + type)
            hasher.update(data: Self.lengthPrefix(representation.data.count))
            hasher.update(data: representation.data)
        }
        return Hex.encode(hasher.finalize())
    }

    static func lengthPrefix(_ count: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt64(count).bigEndian) { Array($0) }
    }
}

/// Sizes for people: `512 B`, `12.5 KiB`, `3.2 MiB`; and sizes from people: `123`, `512K`, `16M`, `16MiB`.
public enum ByteCountText {
    /// A size as typed: bytes, or with K or M (binary units; `B`, `KB`, `KiB` and lower case read too); nil for
    /// anything else.
    public static func parse(_ text: String) -> Int? {
        let upper = text.uppercased().replacingOccurrences(of: "IB", with: "").replacingOccurrences(of: "B", with: "")
        let (digits, scale) =
            switch upper.last {
            case "K": (upper.dropLast(), 1024)
            case "M": (upper.dropLast(), 1024 * 1024)
            default: (Substring(upper), 1)
            }
        return Int(digits).flatMap { $0.multipliedReportingOverflow(by: scale).overflow ? nil : $0 * scale }
    }

    public static func describe(_ count: Int) -> String {
        if count < 1024 { return "\(count) B" }
        let units = ["KiB", "MiB", "GiB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: value < 10 ? "%.1f" : "%.0f", value) + " " + units[unit]
    }
}
