import Testing

@testable import HuddleQR

/// Function patterns (ISO/IEC 18004:2015, 6.3) and data masking (7.8) in finished symbols.
@Suite("Symbol structure and masking")
struct SymbolStructureTests {
    /// The 7 × 7 finder pattern with its light separator, seen from the pattern's own top left corner.
    static func finderModule(dx: Int, dy: Int) -> Bool {
        let ring = max(abs(dx - 3), abs(dy - 3))
        return ring != 2 && ring != 4
    }

    @Test(arguments: [1, 2, 7, 14, 40]) func functionPatterns(version: Int) throws {
        let capacity = QRBlockLayout(version: version, errorCorrection: .quartile).byteCapacity
        let code = try QRCode(
            encoding: [UInt8](repeating: 0x42, count: capacity),
            errorCorrection: .quartile,
            version: version,
            mask: nil
        )
        let size = code.size
        #expect(size == 4 * version + 17)
        for dy in 0..<8 {
            for dx in 0..<8 {
                let expected = Self.finderModule(dx: dx, dy: dy)
                #expect(code.isDark(x: dx, y: dy) == expected)
                #expect(code.isDark(x: size - 1 - dx, y: dy) == expected)
                #expect(code.isDark(x: dx, y: size - 1 - dy) == expected)
            }
        }
        for index in 8..<(size - 8) {
            #expect(code.isDark(x: index, y: 6) == (index % 2 == 0))
            #expect(code.isDark(x: 6, y: index) == (index % 2 == 0))
        }
        // Alignment patterns: dark centre, light ring, dark border.
        let centres = QRVersionTables.alignmentPatternCentres[version - 1]
        for centreY in centres {
            for centreX in centres where centreX != 6 || centreY != 6 {
                if (centreX == 6 && centreY == size - 7) || (centreX == size - 7 && centreY == 6) { continue }
                #expect(code.isDark(x: centreX, y: centreY))
                #expect(!code.isDark(x: centreX + 1, y: centreY - 1))
                #expect(code.isDark(x: centreX - 2, y: centreY + 2))
            }
        }
    }

    /// Table 10's conditions, checked at a few modules by hand (i is the row, j the column).
    @Test func maskConditions() {
        #expect(QRMasking.inverts(mask: 0, i: 1, j: 1))
        #expect(!QRMasking.inverts(mask: 0, i: 1, j: 2))
        #expect(QRMasking.inverts(mask: 1, i: 2, j: 5))
        #expect(QRMasking.inverts(mask: 2, i: 5, j: 3))
        #expect(!QRMasking.inverts(mask: 2, i: 3, j: 5))
        #expect(QRMasking.inverts(mask: 3, i: 1, j: 2))
        #expect(QRMasking.inverts(mask: 4, i: 2, j: 3))  // 1 + 1
        #expect(!QRMasking.inverts(mask: 4, i: 0, j: 3))  // 0 + 1
        #expect(QRMasking.inverts(mask: 5, i: 6, j: 5))
        #expect(!QRMasking.inverts(mask: 5, i: 1, j: 1))
        #expect(QRMasking.inverts(mask: 6, i: 1, j: 1))  // (1 + 1) mod 2
        #expect(!QRMasking.inverts(mask: 6, i: 1, j: 5))  // (1 + 2) mod 2
        #expect(QRMasking.inverts(mask: 7, i: 0, j: 0))
        #expect(!QRMasking.inverts(mask: 7, i: 1, j: 1))
    }

    /// Features 1 and 3 of Table 11 along single lines.
    @Test func linePenalties() {
        func line(_ text: String) -> [Bool] { text.map { $0 == "1" } }
        #expect(QRMasking.linePenalty(line("1010")) == 0)
        #expect(QRMasking.linePenalty(line("0101011111")) == 3)  // a run of 5
        #expect(QRMasking.linePenalty(line("01111111010")) == 5)  // a run of 7
        // 1:1:3:1:1 with 4 light modules after it (the trailing run of 5 light adds 3), and the quiet zone
        // counting as light before it: 40 + 40 + 3.
        #expect(QRMasking.linePenalty(line("1011101000001")) == 83)
        // Preceded by dark and followed by only 3 light modules before a dark one: no finder-like pattern.
        #expect(QRMasking.linePenalty(line("1110111010001")) == 0)
    }

    /// Features 1 and 3 read literally off Table 11: runs counted with an optional previous colour, the line padded
    /// with 4 light quiet-zone modules on each side and every window of 7 compared with 1:1:3:1:1.
    static func literalLinePenalty(_ line: [Bool]) -> Int {
        var score = 0
        var runLength = 0
        var previous: Bool?
        for module in line {
            if module == previous {
                runLength += 1
            } else {
                if runLength >= 5 { score += 3 + runLength - 5 }
                (runLength, previous) = (1, module)
            }
        }
        if runLength >= 5 { score += 3 + runLength - 5 }
        let padded = [Bool](repeating: false, count: 4) + line + [Bool](repeating: false, count: 4)
        let core: [Bool] = [true, false, true, true, true, false, true]
        for start in 0...(padded.count - 7) where Array(padded[start..<start + 7]) == core {
            if start >= 4 && !padded[(start - 4)..<start].contains(true) { score += 40 }
            if start + 11 <= padded.count && !padded[(start + 7)..<(start + 11)].contains(true) { score += 40 }
        }
        return score
    }

    /// The encoder's line penalty agrees with the literal reading on every line of up to 15 modules: 15 is the
    /// width of the finder-like rule (4 light, 7, 4 light), so every arrangement it can see is among them.
    @Test func linePenaltyAgreesWithTheLiteralReadingOnEveryShortLine() {
        var scoredByFinderRule = 0
        for length in 0...15 {
            for bits in 0..<(1 << length) {
                let line = (0..<length).map { bits >> $0 & 1 == 1 }
                let expected = Self.literalLinePenalty(line)
                #expect(QRMasking.linePenalty(line) == expected, "\(line.map { $0 ? 1 : 0 })")
                if expected >= 40 { scoredByFinderRule += 1 }
            }
        }
        #expect(scoredByFinderRule > 1000)
    }

    /// The mask the encoder picks has the lowest penalty of the eight (7.8.3).
    @Test(arguments: QRCode.ErrorCorrectionLevel.allCases) func lowestPenaltyMaskIsChosen(
        level: QRCode.ErrorCorrectionLevel
    ) throws {
        let payload = Array("huddle:pair?id=0123456789abcdef&port=52000".utf8)
        let chosen = try QRCode(encoding: payload, errorCorrection: level)
        var penalties: [Int] = []
        for mask in 0...7 {
            let forced = try QRCode(encoding: payload, errorCorrection: level, version: nil, mask: mask)
            #expect(forced.version == chosen.version)
            penalties.append(QRMasking.penalty(of: Self.matrix(of: forced)))
        }
        #expect(chosen.mask == penalties.firstIndex(of: penalties.min()!))
        #expect(Set(penalties).count > 1)
    }

    /// Rebuilds the module matrix of a finished symbol, to score it again.
    static func matrix(of code: QRCode) -> QRModuleMatrix {
        var matrix = QRModuleMatrix(version: code.version)
        for y in 0..<code.size {
            for x in 0..<code.size where !matrix.isFunction(x: x, y: y) {
                matrix.setData(x: x, y: y, dark: code.isDark(x: x, y: y))
            }
        }
        matrix.drawFormatInformation(
            QRFormatInformation.formatBits(errorCorrection: code.errorCorrection, mask: code.mask)
        )
        return matrix
    }

    @Test func rowsMatchModules() throws {
        let code = try QRCode(encoding: Array("rows".utf8))
        let rows = code.rows
        #expect(rows.count == code.size)
        for (y, row) in rows.enumerated() {
            #expect(row == (0..<code.size).map { code.isDark(x: $0, y: y) })
        }
    }
}
