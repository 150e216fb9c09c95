/// Cleans untrusted text (names, context payloads) before it is shown (`docs/security.md` §3.4, B5): control
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

    /// Bytes from a peer, decoded as UTF-8 (invalid sequences replaced) and cleaned.
    public static func sanitized(bytes: [UInt8], limit: Int = 1024) -> String {
        sanitized(String(decoding: bytes, as: UTF8.self), limit: limit)
    }
}
