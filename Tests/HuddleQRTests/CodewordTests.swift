import Testing

@testable import HuddleQR

/// The data bit stream, padding and block interleaving (ISO/IEC 18004:2015, 7.4 to 7.6).
@Suite("Data codewords and interleaving")
struct CodewordTests {
    /// "Hi" in byte mode at 1-M: 0100 | 00000010 | 01001000 01101001 | 0000, then the pad codewords.
    @Test func byteModeBitStream() {
        let layout = QRBlockLayout(version: 1, errorCorrection: .medium)
        let codewords = QRCodewordSequence.dataCodewords(for: Array("Hi".utf8), layout: layout)
        let pad: [UInt8] = [0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11]
        #expect(codewords == [0x40, 0x24, 0x86, 0x90] + pad)
    }

    /// From version 10 the character count takes 16 bits.
    @Test func sixteenBitCharacterCountFromVersion10() {
        let layout = QRBlockLayout(version: 10, errorCorrection: .high)
        let codewords = QRCodewordSequence.dataCodewords(for: [0xAB], layout: layout)
        // 0100 | 00000000 00000001 | 10101011 | 0000
        #expect(Array(codewords.prefix(4)) == [0x40, 0x00, 0x1A, 0xB0])
        #expect(codewords.count == layout.dataCodewords)
    }

    /// A full symbol has no room for the terminator: the data ends the bit stream.
    @Test func fullSymbolHasNoTerminatorOrPad() {
        let layout = QRBlockLayout(version: 1, errorCorrection: .low)
        let payload = [UInt8](repeating: 0xFF, count: 17)
        let codewords = QRCodewordSequence.dataCodewords(for: payload, layout: layout)
        #expect(codewords.count == 19)
        #expect(codewords.first == 0x41)  // 0100 0001 (count 17 = 00010001)
        #expect(codewords[1] == 0x1F)
        #expect(codewords.last == 0xF0)  // the last 4 data bits and 4 bits of terminator
    }

    /// Version 5-Q: two blocks of 15 data codewords and two of 16 (Table 9); codeword 16 of the long blocks comes
    /// last (7.6).
    @Test func interleavingVersion5Q() {
        let layout = QRBlockLayout(version: 5, errorCorrection: .quartile)
        #expect(layout.dataCodewordsPerBlock == [15, 15, 16, 16])
        #expect(layout.eccCodewordsPerBlock == 18)
        let data = (0..<62).map { UInt8($0) }
        let sequence = QRCodewordSequence.interleaved(dataCodewords: data, layout: layout)
        #expect(sequence.count == 134)
        #expect(Array(sequence.prefix(8)) == [0, 15, 30, 46, 1, 16, 31, 47])
        #expect(Array(sequence[56..<62]) == [14, 29, 44, 60, 45, 61])
        let encoder = ReedSolomonEncoder(eccCount: 18)
        let firstBlockECC = encoder.eccCodewords(for: Array(data[0..<15]))
        let lastBlockECC = encoder.eccCodewords(for: Array(data[46..<62]))
        #expect(sequence[62] == firstBlockECC[0])
        #expect(sequence[65] == lastBlockECC[0])
        #expect(sequence[133] == lastBlockECC[17])
    }
}
