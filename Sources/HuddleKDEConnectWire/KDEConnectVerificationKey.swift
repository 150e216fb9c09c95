import Crypto

/// What both screens show when two KDE Connect devices pair, for the user to compare (docs/kdeconnect.md,
/// "Pairing"): SHA-256 of the two certificates' public keys (DER SubjectPublicKeyInfo), the bytewise larger
/// first; from protocol version 8 on, followed by the pairing request's timestamp in decimal. Shown as its first
/// 8 hex digits.
public enum KDEConnectVerificationKey {
    public static func compute(_ one: [UInt8], _ other: [UInt8], timestamp: Int64?) -> String {
        let (first, second) = one.lexicographicallyPrecedes(other) ? (other, one) : (one, other)
        var hash = SHA256()
        hash.update(data: first)
        hash.update(data: second)
        if let timestamp { hash.update(data: Array(String(timestamp).utf8)) }
        let hex = hash.finalize().map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
        let short = String(hex.prefix(8))
        // Version 8 shows it in capitals; version 7 as it is.
        return timestamp == nil ? short : short.uppercased()
    }
}
