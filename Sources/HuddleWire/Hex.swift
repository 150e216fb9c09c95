/// Bytes as hex text and back: the one encoding of digests, fingerprints, keys, identifiers and random tokens as
/// text.
public enum Hex {
    private static let lower = Array("0123456789abcdef".utf8)
    private static let upper = Array("0123456789ABCDEF".utf8)

    /// Two hex digits per byte, lower-case unless `uppercase`.
    public static func encode(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        let digits = uppercase ? upper : lower
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes `text` spells in hex digits of either case; nil for an odd count or anything but a hex digit.
    public static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(of: digits[index]), let low = value(of: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// `byteCount` random bytes from `generator`, as lower-case hex (twice as many characters).
    public static func randomToken(byteCount: Int, using generator: inout some RandomNumberGenerator) -> String {
        encode((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// `byteCount` bytes from the system's random number generator, as lower-case hex.
    public static func randomToken(byteCount: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return randomToken(byteCount: byteCount, using: &generator)
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension Sequence<UInt8> {
    /// Lower-case hex (``Hex/encode(_:uppercase:)``).
    public var hexString: String { Hex.encode(self) }
}
