/// Text fields cut to a byte limit without breaking a character.
///
/// Text travels as UTF-8 with a length limit, and readers refuse a field that is not valid UTF-8. Cutting the
/// bytes at the limit could end inside a character and turn a long but honest field (a failure reason naming a
/// deep path) into a refused message; cutting at a character boundary keeps it valid (`docs/wire-protocol.md` §7).
public enum WireText {
    /// The UTF-8 bytes of the longest prefix of `text` that ends on a character boundary and has at most
    /// `maximumBytes` bytes.
    public static func utf8Prefix(of text: String, maximumBytes: Int) -> [UInt8] {
        guard text.utf8.count > maximumBytes else { return Array(text.utf8) }
        var end = text.startIndex
        var count = 0
        while end < text.endIndex {
            let next = text.index(after: end)
            let size = text.utf8.distance(from: end, to: next)
            guard count + size <= maximumBytes else { break }
            count += size
            end = next
        }
        return Array(text[..<end].utf8)
    }
}
