import Foundation

/// Cleans untrusted text (names, context payloads) before it is shown (`docs/security.md` §3.4, §5 B5): control
/// characters and Unicode bidirectional overrides and isolates are removed, invalid UTF-8 is replaced, and the
/// result is cut to a length a prompt can show.
public enum DisplayText {
    /// The characters removed: C0/C1 controls, bidi embeddings, overrides, isolates and marks.
    static func isRemoved(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x200E, 0x200F, 0x061C: true
        case 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// The cleaned text, at most `limit` characters (an ellipsis marks a cut).
    public static func sanitized(_ text: String, limit: Int = 64) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where !isRemoved(scalar) { scalars.append(scalar) }
        let clean = String(scalars)
        return clean.count <= limit ? clean : String(clean.prefix(limit - 1)) + "…"
    }

    /// The text with every character that could drive a terminal made visible instead: ESC as `\e`, the usual C
    /// escapes (`\a \b \t \n \v \f \r`), and the other C0 and C1 controls, DEL, the bidi embeddings,
    /// overrides, isolates and marks, and the line and paragraph separators as `\u{…}` (hex). Everything else is
    /// kept, backslashes too, so the result escapes to itself: a line may pass through it more than once.
    ///
    /// Names and reasons from peers and from mDNS adverts go through this on their way to a terminal; unlike
    /// ``sanitized(_:limit:)``, it hides nothing and cuts nothing.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isEscaped) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isEscaped(scalar) else {
                out.append(scalar)
                continue
            }
            let shown: String =
                switch scalar.value {
                case 0x1B: "\\e"
                case 0x07: "\\a"
                case 0x08: "\\b"
                case 0x09: "\\t"
                case 0x0A: "\\n"
                case 0x0B: "\\v"
                case 0x0C: "\\f"
                case 0x0D: "\\r"
                default: "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                }
            out.append(contentsOf: shown.unicodeScalars)
        }
        return String(out)
    }

    /// The characters ``escaped(_:)`` makes visible: those ``sanitized(_:limit:)`` removes, and the line and
    /// paragraph separators.
    public static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        isRemoved(scalar) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// The form in which two names are compared to see whether one could pass for the other (`docs/security.md`
    /// §5 J3): compatibility-normalised (Unicode NFKC: full-width letters, ligatures, …), case, width and
    /// diacritics folded, common Cyrillic and Greek look-alikes of Latin letters replaced by them, invisible
    /// format characters (zero-width spaces and joiners, …) and the characters ``sanitized(_:limit:)`` removes
    /// dropped, white space runs made one space, and trimmed. "Bob", "bob ", "Ｂｏｂ", "B\u{200B}ob", "Bób" and
    /// "Воb" (Cyrillic В) all give "bob".
    public static func lookalikeKey(_ name: String) -> String {
        let folded = name.precomposedStringWithCompatibilityMapping.folding(
            options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive],
            locale: nil
        )
        var scalars = String.UnicodeScalarView()
        var space = false
        for scalar in folded.unicodeScalars {
            if isRemoved(scalar) || scalar.properties.generalCategory == .format { continue }
            if scalar.properties.isWhitespace {
                space = true
                continue
            }
            if space && !scalars.isEmpty { scalars.append(" ") }
            space = false
            scalars.append(latinLookalikes[scalar] ?? scalar)
        }
        return String(scalars)
    }

    /// Lower-case Cyrillic and Greek letters that look like Latin ones (after case folding).
    private static let latinLookalikes: [Unicode.Scalar: Unicode.Scalar] = {
        let pairs: [(String, String)] = [
            ("аеорсхуіјѕԁԛԝвкмнт", "aeopcxyijsdqwbkmht"),  // Cyrillic
            ("αβεικνορτυχη", "abeikvoptuxn"),  // Greek
        ]
        var table: [Unicode.Scalar: Unicode.Scalar] = [:]
        for (from, to) in pairs {
            for (a, b) in zip(from.unicodeScalars, to.unicodeScalars) { table[a] = b }
        }
        return table
    }()

    /// Bytes from a peer, decoded as UTF-8 (invalid sequences replaced) and cleaned.
    public static func sanitized(bytes: [UInt8], limit: Int = 1024) -> String {
        sanitized(String(decoding: bytes, as: UTF8.self), limit: limit)
    }
}
