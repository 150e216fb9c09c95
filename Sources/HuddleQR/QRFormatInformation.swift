/// The BCH-protected format and version information (ISO/IEC 18004:2015, 7.9 and 7.10; Annex C and Annex D).
enum QRFormatInformation {
    /// The generator of the (15, 5) BCH code of the format information: x¹⁰ + x⁸ + x⁵ + x⁴ + x² + x + 1.
    static let formatGenerator = 0b101_0011_0111
    /// XORed into the format information so that it is never all zero (7.9.1).
    static let formatMask = 0b101_0100_0001_0010
    /// The generator of the (18, 6) BCH code of the version information: x¹² + x¹¹ + x¹⁰ + x⁹ + x⁸ + x⁵ + x² + 1.
    static let versionGenerator = 0b1_1111_0010_0101

    /// The 15 format information bits: the 2 error correction level bits and the 3 mask bits, 10 BCH bits after
    /// them, then XOR with 101010000010010 (7.9.1).
    static func formatBits(errorCorrection: QRCode.ErrorCorrectionLevel, mask: Int) -> Int {
        precondition((0...7).contains(mask), "mask patterns are numbered 0 to 7")
        let data = errorCorrection.formatIndicator << 3 | mask
        return (data << 10 | Self.remainder(of: data << 10, generator: Self.formatGenerator, degree: 10))
            ^ Self.formatMask
    }

    /// The 18 version information bits: the 6-bit version number and 12 BCH bits after it (7.10). Only symbols of
    /// version 7 and above carry it.
    static func versionBits(version: Int) -> Int {
        precondition((7...40).contains(version), "only versions 7 to 40 carry version information")
        return version << 12 | Self.remainder(of: version << 12, generator: Self.versionGenerator, degree: 12)
    }

    /// The remainder of the polynomial `value` over GF(2) divided by `generator`, which has degree `degree`.
    private static func remainder(of value: Int, generator: Int, degree: Int) -> Int {
        var remainder = value
        var top = Int.bitWidth - 1 - remainder.leadingZeroBitCount
        while remainder != 0 && top >= degree {
            remainder ^= generator << (top - degree)
            top = Int.bitWidth - 1 - remainder.leadingZeroBitCount
        }
        return remainder
    }
}
