/// The per-version tables of ISO/IEC 18004:2015, as plain numbers.
///
/// Each table is indexed by `version - 1` (versions 1 to 40). They are kept apart from the code that uses them so
/// that they can be read against the standard line by line.
enum QRVersionTables {
    /// Error correction codewords in each block (Table 9, the "(c, k, r)" columns: `c - k`).
    ///
    /// Every block of one version and level has the same number of error correction codewords; only the number of
    /// data codewords differs (by one) between the two groups of blocks.
    static func eccCodewordsPerBlock(_ level: QRCode.ErrorCorrectionLevel) -> [Int] {
        switch level {
        case .low: eccCodewordsPerBlockLow
        case .medium: eccCodewordsPerBlockMedium
        case .quartile: eccCodewordsPerBlockQuartile
        case .high: eccCodewordsPerBlockHigh
        }
    }

    /// The number of error correction blocks, both groups together (Table 9, "number of error correction blocks").
    static func blockCount(_ level: QRCode.ErrorCorrectionLevel) -> [Int] {
        switch level {
        case .low: blockCountLow
        case .medium: blockCountMedium
        case .quartile: blockCountQuartile
        case .high: blockCountHigh
        }
    }

    private static let eccCodewordsPerBlockLow = [
        7, 10, 15, 20, 26, 18, 20, 24, 30, 18,
        20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
        28, 28, 30, 30, 26, 28, 30, 30, 30, 30,
        30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
    ]
    private static let eccCodewordsPerBlockMedium = [
        10, 16, 26, 18, 24, 16, 18, 22, 22, 26,
        30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
        26, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
    ]
    private static let eccCodewordsPerBlockQuartile = [
        13, 22, 18, 26, 18, 24, 18, 22, 20, 24,
        28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
        28, 30, 30, 30, 30, 28, 30, 30, 30, 30,
        30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
    ]
    private static let eccCodewordsPerBlockHigh = [
        17, 28, 22, 16, 22, 28, 26, 26, 24, 28,
        24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
        30, 24, 30, 30, 30, 30, 30, 30, 30, 30,
        30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
    ]

    private static let blockCountLow = [
        1, 1, 1, 1, 1, 2, 2, 2, 2, 4,
        4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
        8, 9, 9, 10, 12, 12, 12, 13, 14, 15,
        16, 17, 18, 19, 19, 20, 21, 22, 24, 25,
    ]
    private static let blockCountMedium = [
        1, 1, 1, 2, 2, 4, 4, 4, 5, 5,
        5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
        17, 17, 18, 20, 21, 23, 25, 26, 28, 29,
        31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
    ]
    private static let blockCountQuartile = [
        1, 1, 2, 2, 4, 4, 6, 6, 8, 8,
        8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
        23, 23, 25, 27, 29, 34, 34, 35, 38, 40,
        43, 45, 48, 51, 53, 56, 59, 62, 65, 68,
    ]
    private static let blockCountHigh = [
        1, 1, 2, 4, 4, 4, 5, 6, 8, 8,
        11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
        25, 34, 30, 32, 35, 37, 40, 42, 45, 48,
        51, 54, 57, 60, 63, 66, 70, 74, 77, 81,
    ]

    /// The row and column coordinates of the centres of the alignment patterns (Annex E, Table E.1).
    ///
    /// Patterns sit at every pairing of these coordinates except the three that would overlap a finder pattern.
    static let alignmentPatternCentres: [[Int]] = [
        [],
        [6, 18],
        [6, 22],
        [6, 26],
        [6, 30],
        [6, 34],
        [6, 22, 38],
        [6, 24, 42],
        [6, 26, 46],
        [6, 28, 50],
        [6, 30, 54],
        [6, 32, 58],
        [6, 34, 62],
        [6, 26, 46, 66],
        [6, 26, 48, 70],
        [6, 26, 50, 74],
        [6, 30, 54, 78],
        [6, 30, 56, 82],
        [6, 30, 58, 86],
        [6, 34, 62, 90],
        [6, 28, 50, 72, 94],
        [6, 26, 50, 74, 98],
        [6, 30, 54, 78, 102],
        [6, 28, 54, 80, 106],
        [6, 32, 58, 84, 110],
        [6, 30, 58, 86, 114],
        [6, 34, 62, 90, 118],
        [6, 26, 50, 74, 98, 122],
        [6, 30, 54, 78, 102, 126],
        [6, 26, 52, 78, 104, 130],
        [6, 30, 56, 82, 108, 134],
        [6, 34, 60, 86, 112, 138],
        [6, 30, 58, 86, 114, 142],
        [6, 34, 62, 90, 118, 146],
        [6, 30, 54, 78, 102, 126, 150],
        [6, 24, 50, 76, 102, 128, 154],
        [6, 28, 54, 80, 106, 132, 158],
        [6, 32, 58, 84, 110, 136, 162],
        [6, 26, 54, 82, 110, 138, 166],
        [6, 30, 58, 86, 114, 142, 170],
    ]
}
