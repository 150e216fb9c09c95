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
        let modules = matrix.modules
        var score = 0
        var column = [Bool](repeating: false, count: size)
        for index in 0..<size {
            score += Self.linePenalty(Array(modules[(index * size)..<((index + 1) * size)]))
            for y in 0..<size { column[y] = modules[y * size + index] }
            score += Self.linePenalty(column)
        }
        // Feature 2: each 2 × 2 block of one colour (overlapping blocks each count).
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let colour = modules[y * size + x]
                if modules[y * size + x + 1] == colour && modules[(y + 1) * size + x] == colour
                    && modules[(y + 1) * size + x + 1] == colour
                {
                    score += Self.blockWeight
                }
            }
        }
        // Feature 4: 10 points for every full 5 % step that the share of dark modules lies away from 50 %.
        let darkCount = modules.count(where: { $0 })
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
        guard let first = line.first else { return 0 }
        var score = 0
        var runLength = 0
        var colour = first
        for module in line {
            if module == colour {
                runLength += 1
            } else {
                if runLength >= 5 { score += Self.adjacentRunWeight + runLength - 5 }
                runLength = 1
                colour = module
            }
        }
        if runLength >= 5 { score += Self.adjacentRunWeight + runLength - 5 }

        // Plain index arithmetic rather than slices: this runs for every row and column of all eight masks.
        let count = line.count
        guard count >= 7 else { return score }
        func dark(_ index: Int) -> Bool { index >= 0 && index < count && line[index] }
        func lightFour(from index: Int) -> Bool {
            !dark(index) && !dark(index + 1) && !dark(index + 2) && !dark(index + 3)
        }
        for start in 0...(count - 7)
        where dark(start) && !dark(start + 1) && dark(start + 2) && dark(start + 3) && dark(start + 4)
            && !dark(start + 5) && dark(start + 6)
        {
            if lightFour(from: start - 4) { score += Self.finderLikeWeight }
            if lightFour(from: start + 7) { score += Self.finderLikeWeight }
        }
        return score
    }
}
