/// How the codewords of one version and error correction level are counted and split into blocks
/// (ISO/IEC 18004:2015, 7.5.1 and Table 9).
struct QRBlockLayout: Sendable, Hashable {
    /// The symbol version, 1 to 40.
    let version: Int
    let errorCorrection: QRCode.ErrorCorrectionLevel

    /// All codewords the symbol holds, data and error correction together (Table 1, "number of data modules
    /// except (C)" divided by 8; the remainder bits are left over).
    let totalCodewords: Int
    /// The number of blocks, both groups together.
    let blockCount: Int
    /// Error correction codewords per block.
    let eccCodewordsPerBlock: Int

    init(version: Int, errorCorrection: QRCode.ErrorCorrectionLevel) {
        precondition((1...40).contains(version), "QR code versions run from 1 to 40")
        self.version = version
        self.errorCorrection = errorCorrection
        self.totalCodewords = Self.dataModuleCount(version: version) / 8
        self.blockCount = QRVersionTables.blockCount(errorCorrection)[version - 1]
        self.eccCodewordsPerBlock = QRVersionTables.eccCodewordsPerBlock(errorCorrection)[version - 1]
    }

    /// Codewords available for data (Table 7, "number of data codewords").
    var dataCodewords: Int { self.totalCodewords - self.blockCount * self.eccCodewordsPerBlock }

    /// The data codewords of each block, in order: the first group's blocks are one codeword shorter than the
    /// second group's (7.5.2).
    var dataCodewordsPerBlock: [Int] {
        let shortLength = self.totalCodewords / self.blockCount - self.eccCodewordsPerBlock
        let longBlocks = self.totalCodewords % self.blockCount
        return Array(repeating: shortLength, count: self.blockCount - longBlocks)
            + Array(repeating: shortLength + 1, count: longBlocks)
    }

    /// Bits of the character count indicator in byte mode (Table 3): 8 up to version 9, 16 from version 10.
    var characterCountBits: Int { self.version <= 9 ? 8 : 16 }

    /// The longest byte-mode payload that fits: the 4-bit mode indicator and the count come first (Table 7, "8-bit
    /// byte").
    var byteCapacity: Int {
        let dataBits = self.dataCodewords * 8 - 4 - self.characterCountBits
        return min(dataBits / 8, (1 << self.characterCountBits) - 1)
    }

    /// The modules left for codewords once every function pattern and the format and version information are
    /// placed (6.4.10 and Table 1).
    ///
    /// Counted as the whole square less the finder patterns with their separators and the format information
    /// (3 × 64 + 31, the dark module included), the timing patterns between the finders, the alignment patterns
    /// (less the 5 modules each shares with a timing pattern when it sits on row or column 6) and, from version 7,
    /// the two 6 × 3 version information blocks.
    static func dataModuleCount(version: Int) -> Int {
        let size = 4 * version + 17
        var count = size * size - 3 * 64 - 31 - 2 * (size - 16)
        let centres = QRVersionTables.alignmentPatternCentres[version - 1]
        if !centres.isEmpty {
            let patterns = centres.count * centres.count - 3
            let onTimingPatterns = 2 * (centres.count - 2)
            count -= patterns * 25 - onTimingPatterns * 5
        }
        if version >= 7 { count -= 2 * 18 }
        return count
    }

    /// The smallest version whose capacity at `errorCorrection` holds `byteCount` bytes, or nil when none does.
    static func smallestVersion(holding byteCount: Int, errorCorrection: QRCode.ErrorCorrectionLevel) -> Int? {
        (1...40).first { QRBlockLayout(version: $0, errorCorrection: errorCorrection).byteCapacity >= byteCount }
    }
}
