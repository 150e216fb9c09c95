/// The eight data mask patterns and the penalty rules that choose between them (ISO/IEC 18004:2015, 7.8).
enum QRMasking {
    /// The penalty weights N1 to N4 of 7.8.3.1.
    static let adjacentRunWeight = 3
    static let blockWeight = 3
    static let finderLikeWeight = 40
    static let balanceWeight = 10

    /// Whether mask pattern `mask` inverts the module in row `i`, column `j` (Table 10).
    static func inverts(mask: Int, i: Int, j: Int) -> Bool {
        switch mask {
        case 0: (i + j) % 2 == 0
        case 1: i % 2 == 0
        case 2: j % 3 == 0
        case 3: (i + j) % 3 == 0
        case 4: (i / 2 + j / 3) % 2 == 0
        case 5: (i * j) % 2 + (i * j) % 3 == 0
        case 6: ((i * j) % 2 + (i * j) % 3) % 2 == 0
        case 7: ((i + j) % 2 + (i * j) % 3) % 2 == 0
        default: preconditionFailure("mask patterns are numbered 0 to 7")
        }
    }

    /// Applies mask pattern `mask` to every module that is not a function module (7.8.2).
    static func apply(mask: Int, to matrix: inout QRModuleMatrix) {
        for y in 0..<matrix.size {
            for x in 0..<matrix.size where !matrix.isFunction(x: x, y: y) {
                if Self.inverts(mask: mask, i: y, j: x) { matrix.flipData(x: x, y: y) }
            }
        }
    }

    /// The penalty score of a finished symbol (7.8.3, Table 11); the mask with the lowest score is used.
    static func penalty(of matrix: QRModuleMatrix) -> Int {
        let size = matrix.size
        var score = 0
        for index in 0..<size {
            score += Self.linePenalty((0..<size).map { matrix.isDark(x: $0, y: index) })
            score += Self.linePenalty((0..<size).map { matrix.isDark(x: index, y: $0) })
        }
        // Feature 2: each 2 × 2 block of one colour (overlapping blocks each count).
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let colour = matrix.isDark(x: x, y: y)
                if matrix.isDark(x: x + 1, y: y) == colour && matrix.isDark(x: x, y: y + 1) == colour
                    && matrix.isDark(x: x + 1, y: y + 1) == colour
                {
                    score += Self.blockWeight
                }
            }
        }
        // Feature 4: 10 points for every full 5 % step that the share of dark modules lies away from 50 %.
        let darkCount = matrix.modules.count(where: { $0 })
        let total = size * size
        score += Self.balanceWeight * (abs(darkCount * 20 - total * 10) / total)
        return score
    }

    /// Features 1 and 3 along one row or column.
    ///
    /// Feature 1: a run of 5 or more modules of one colour scores 3, plus 1 for each module beyond 5. Feature 3:
    /// dark–light–dark–dark–dark–light–dark (1:1:3:1:1) with 4 light modules before it, or after it, scores 40
    /// for each side. The quiet zone counts as light, so a pattern at the edge of the symbol counts too.
    static func linePenalty(_ line: [Bool]) -> Int {
        var score = 0
        var runLength = 0
        var previous: Bool?
        for module in line {
            if module == previous {
                runLength += 1
            } else {
                if runLength >= 5 { score += Self.adjacentRunWeight + runLength - 5 }
                runLength = 1
                previous = module
            }
        }
        if runLength >= 5 { score += Self.adjacentRunWeight + runLength - 5 }

        let quiet = [Bool](repeating: false, count: 4)
        let padded = quiet + line + quiet
        let core: [Bool] = [true, false, true, true, true, false, true]
        for start in 0...(padded.count - 7) where padded[start..<start + 7].elementsEqual(core) {
            if start >= 4 && !padded[(start - 4)..<start].contains(true) { score += Self.finderLikeWeight }
            if start + 11 <= padded.count && !padded[(start + 7)..<(start + 11)].contains(true) {
                score += Self.finderLikeWeight
            }
        }
        return score
    }
}
