public import Foundation

/// base64url without padding (RFC 4648 §5, §3.2), the alphabet safe in URLs and file names.
///
/// Works on bytes, without Foundation's base64 or string replacing: a `huddle:` URL may carry some 70 KB.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's 6-bit value in the alphabet, or 0xFF for a byte outside it.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    public static func encode(_ data: Data) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((data.count * 4 + 2) / 3)
        var bits: UInt32 = 0
        var count = 0
        for byte in data {
            bits = bits << 8 | UInt32(byte)
            count += 8
            while count >= 6 {
                count -= 6
                out.append(alphabet[Int(bits >> UInt32(count) & 0x3F)])
            }
        }
        if count > 0 { out.append(alphabet[Int(bits << UInt32(6 - count) & 0x3F)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base64url with or without padding; nil for any character outside the alphabet, padding anywhere
    /// but at the end, or a length no encoding has (RFC 4648 §3.3, §3.5). Leftover bits are ignored.
    public static func decode(_ text: Substring) -> Data? {
        var utf8 = text.utf8[...]
        while utf8.last == UInt8(ascii: "=") { utf8 = utf8.dropLast() }
        guard utf8.count % 4 != 1 else { return nil }  // one character holds only 6 bits: no byte ends there
        var out = Data(capacity: utf8.count * 3 / 4)
        var bits: UInt32 = 0
        var count = 0
        for byte in utf8 {
            let value = values[Int(byte)]
            guard value != 0xFF else { return nil }
            bits = bits << 6 | UInt32(value)
            count += 6
            if count >= 8 {
                count -= 8
                out.append(UInt8(truncatingIfNeeded: bits >> UInt32(count)))
            }
        }
        return out
    }
}
