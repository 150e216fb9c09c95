import Testing

@testable import HuddleQR

/// Format information (ISO/IEC 18004:2015, 7.9, Annex C) and version information (7.10, Annex D).
@Suite("Format and version information")
struct FormatInformationTests {
    /// Values of Table C.1, after the XOR with 101010000010010.
    @Test(arguments: [
        (QRCode.ErrorCorrectionLevel.low, 0, 0x77C4),  // 111011111000100
        (.low, 4, 0x662F),  // 110011000101111
        (.medium, 0, 0x5412),  // 101010000010010: data 00000 has a zero BCH part
        (.medium, 1, 0x5125),  // 101000100100101
        (.quartile, 0, 0x355F),  // 011010101011111
        (.high, 0, 0x1689),  // 001011010001001
        (.high, 7, 0x083B),  // 000100000111011
    ])
    func formatBits(level: QRCode.ErrorCorrectionLevel, mask: Int, expected: Int) {
        #expect(QRFormatInformation.formatBits(errorCorrection: level, mask: mask) == expected)
    }

    /// The (15, 5) BCH code has minimum distance 7: any two of the 32 format words differ in at least 7 bits.
    @Test func formatWordsAreFarApart() {
        let words = QRCode.ErrorCorrectionLevel.allCases.flatMap { level in
            (0...7).map { QRFormatInformation.formatBits(errorCorrection: level, mask: $0) }
        }
        #expect(Set(words).count == 32)
        for (index, word) in words.enumerated() {
            for other in words[(index + 1)...] { #expect((word ^ other).nonzeroBitCount >= 7) }
        }
    }

    /// Values of Table D.1.
    @Test(arguments: [(7, 0x07C94), (8, 0x085BC), (10, 0x0A4D3), (21, 0x15683), (40, 0x28C69)])
    func versionBits(version: Int, expected: Int) {
        #expect(QRFormatInformation.versionBits(version: version) == expected)
    }

    /// The (18, 6) BCH code has minimum distance 8.
    @Test func versionWordsAreFarApart() {
        let words = (7...40).map { QRFormatInformation.versionBits(version: $0) }
        for (index, word) in words.enumerated() {
            #expect(word >> 12 == index + 7)
            for other in words[(index + 1)...] { #expect((word ^ other).nonzeroBitCount >= 8) }
        }
    }

    /// Both copies of the format information in a finished symbol read back as its level and mask (Figure 25).
    @Test(arguments: QRCode.ErrorCorrectionLevel.allCases)
    func formatInformationInTheSymbol(level: QRCode.ErrorCorrectionLevel) throws {
        let code = try QRCode(encoding: Array("format".utf8), errorCorrection: level)
        let size = code.size
        var nearTopLeft = 0
        var split = 0
        let topLeft =
            [(8, 0), (8, 1), (8, 2), (8, 3), (8, 4), (8, 5), (8, 7), (8, 8), (7, 8)]
            + (9...14).map { (14 - $0, 8) }
        for (bit, position) in topLeft.enumerated() where code.isDark(x: position.0, y: position.1) {
            nearTopLeft |= 1 << bit
        }
        let other = (0...7).map { (size - 1 - $0, 8) } + (8...14).map { (8, size - 15 + $0) }
        for (bit, position) in other.enumerated() where code.isDark(x: position.0, y: position.1) {
            split |= 1 << bit
        }
        let expected = QRFormatInformation.formatBits(errorCorrection: level, mask: code.mask)
        #expect(nearTopLeft == expected)
        #expect(split == expected)
        #expect(code.isDark(x: 8, y: size - 8))  // the dark module
    }

    /// Both version information blocks of a version 7 symbol hold 0x07C94 (Figure 27).
    @Test func versionInformationInTheSymbol() throws {
        let code = try QRCode(encoding: [UInt8](repeating: 0x61, count: 120), errorCorrection: .medium)
        #expect(code.version == 7)
        var topRight = 0
        var bottomLeft = 0
        for bit in 0..<18 {
            let near = bit / 3
            let far = code.size - 11 + bit % 3
            if code.isDark(x: far, y: near) { topRight |= 1 << bit }
            if code.isDark(x: near, y: far) { bottomLeft |= 1 << bit }
        }
        #expect(topRight == 0x07C94)
        #expect(bottomLeft == 0x07C94)
    }
}
