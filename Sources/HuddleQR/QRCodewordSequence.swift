/// Bits appended most significant first, as the data bit stream of ISO/IEC 18004:2015, 7.4 is written.
struct QRBitWriter: Sendable {
    private(set) var bytes: [UInt8] = []
    private(set) var bitCount = 0

    /// Appends the low `width` bits of `value`, the most significant of them first.
    mutating func append(_ value: Int, width: Int) {
        precondition(width >= 0 && width <= 31 && value >> width == 0, "value does not fit in \(width) bits")
        for shift in stride(from: width - 1, through: 0, by: -1) {
            if self.bitCount % 8 == 0 { self.bytes.append(0) }
            if (value >> shift) & 1 != 0 { self.bytes[self.bytes.count - 1] |= 0x80 >> UInt8(self.bitCount % 8) }
            self.bitCount += 1
        }
    }
}

/// The codewords of one symbol in the order they are placed: data codewords and error correction codewords, each
/// interleaved across the blocks.
enum QRCodewordSequence {
    /// The mode indicator of byte mode (Table 2).
    static let byteModeIndicator = 0b0100

    /// The data codewords for `bytes` as one byte-mode segment: mode indicator, character count, the bytes, the
    /// terminator and padding (7.4.2, 7.4.5, 7.4.9, 7.4.10).
    static func dataCodewords(for bytes: [UInt8], layout: QRBlockLayout) -> [UInt8] {
        precondition(bytes.count <= layout.byteCapacity, "the payload does not fit the chosen version")
        let capacityBits = layout.dataCodewords * 8
        var writer = QRBitWriter()
        writer.append(Self.byteModeIndicator, width: 4)
        writer.append(bytes.count, width: layout.characterCountBits)
        for byte in bytes { writer.append(Int(byte), width: 8) }
        // The terminator: up to four 0 bits, fewer when the symbol is full (7.4.9).
        writer.append(0, width: min(4, capacityBits - writer.bitCount))
        // Then 0 bits to the codeword boundary, then the pad codewords 11101100 and 00010001 in turn (7.4.10).
        writer.append(0, width: (8 - writer.bitCount % 8) % 8)
        var codewords = writer.bytes
        var padIndex = 0
        while codewords.count < layout.dataCodewords {
            codewords.append(padIndex % 2 == 0 ? 0xEC : 0x11)
            padIndex += 1
        }
        return codewords
    }

    /// Splits the data codewords into blocks, adds each block's error correction codewords and interleaves them:
    /// first codeword 1 of every block, then codeword 2, and so on, the shorter blocks skipped once spent, then the
    /// error correction codewords the same way (7.5.2, 7.6).
    static func interleaved(dataCodewords: [UInt8], layout: QRBlockLayout) -> [UInt8] {
        precondition(dataCodewords.count == layout.dataCodewords, "one data codeword for each place in the symbol")
        let encoder = ReedSolomonEncoder(eccCount: layout.eccCodewordsPerBlock)
        var dataBlocks: [[UInt8]] = []
        var start = 0
        for length in layout.dataCodewordsPerBlock {
            dataBlocks.append(Array(dataCodewords[start..<start + length]))
            start += length
        }
        let eccBlocks = dataBlocks.map { encoder.eccCodewords(for: $0) }
        var sequence: [UInt8] = []
        sequence.reserveCapacity(layout.totalCodewords)
        let longest = dataBlocks.map(\.count).max() ?? 0
        for index in 0..<longest {
            for block in dataBlocks where index < block.count { sequence.append(block[index]) }
        }
        for index in 0..<layout.eccCodewordsPerBlock {
            for block in eccBlocks { sequence.append(block[index]) }
        }
        return sequence
    }
}
