/// Comparisons of secrets (tokens, passes) that take as long for a wrong first byte as for a wrong last one, so
/// that the time of an answer tells nothing of how much of a guess was right.
public enum ConstantTime {
    /// Whether `lhs` and `rhs` are the same bytes; only a difference in length ends early (lengths are not secret).
    public static func equal(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
