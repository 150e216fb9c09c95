import Testing

@testable import HuddleQR

/// Capacities (ISO/IEC 18004:2015, Tables 1, 7 and 9) and the choice of the smallest version.
@Suite("Versions and capacity")
struct VersionSelectionTests {
    /// Byte-mode capacities from Table 7 for versions 1, 2, 9, 10, 27 and 40, at L, M, Q and H.
    @Test(arguments: [
        (1, [17, 14, 11, 7]),
        (2, [32, 26, 20, 14]),
        (9, [230, 180, 130, 98]),
        (10, [271, 213, 151, 119]),
        (27, [1465, 1125, 805, 625]),
        (40, [2953, 2331, 1663, 1273]),
    ])
    func byteCapacity(version: Int, capacities: [Int]) {
        let levels: [QRCode.ErrorCorrectionLevel] = [.low, .medium, .quartile, .high]
        for (level, capacity) in zip(levels, capacities) {
            #expect(QRBlockLayout(version: version, errorCorrection: level).byteCapacity == capacity, "\(level)")
        }
    }

    /// Total codewords per version from Table 1, and the formula for them against the modules a drawn matrix
    /// actually leaves free, for every version.
    @Test func totalCodewords() {
        let known = [1: 26, 2: 44, 6: 172, 7: 196, 14: 581, 21: 1156, 32: 2465, 40: 3706]
        for (version, codewords) in known {
            #expect(QRBlockLayout(version: version, errorCorrection: .low).totalCodewords == codewords)
        }
        for version in 1...40 {
            let matrix = QRModuleMatrix(version: version)
            let free = matrix.functionModules.count(where: { !$0 })
            #expect(QRBlockLayout.dataModuleCount(version: version) == free, "version \(version)")
        }
    }

    /// Table 9's blocks add up: the block sizes sum to the data codewords, the two groups differ by one data
    /// codeword, and every block carries 7 to 30 error correction codewords.
    @Test func blockTablesAreConsistent() {
        for level in QRCode.ErrorCorrectionLevel.allCases {
            for version in 1...40 {
                let layout = QRBlockLayout(version: version, errorCorrection: level)
                let blocks = layout.dataCodewordsPerBlock
                #expect(blocks.count == layout.blockCount)
                #expect(blocks.reduce(0, +) == layout.dataCodewords)
                #expect((blocks.max() ?? 0) - (blocks.min() ?? 0) <= 1)
                #expect((7...30).contains(layout.eccCodewordsPerBlock))
            }
        }
    }

    /// The alignment pattern centres of Annex E: from 6 to size − 7, evenly spaced (even steps) after the first.
    @Test func alignmentCentresAreEvenlySpaced() {
        #expect(QRVersionTables.alignmentPatternCentres[0].isEmpty)
        for version in 2...40 {
            let centres = QRVersionTables.alignmentPatternCentres[version - 1]
            #expect(centres.count == version / 7 + 2, "version \(version)")
            #expect(centres.first == 6)
            #expect(centres.last == 4 * version + 10)
            let steps = zip(centres.dropFirst(), centres).map { $0 - $1 }
            #expect(Set(steps.dropFirst()).count <= 1, "version \(version)")
            #expect(steps.allSatisfy { $0 % 2 == 0 })
        }
    }

    @Test(arguments: [
        (QRCode.ErrorCorrectionLevel.medium, 14, 1),
        (.medium, 15, 2),
        (.low, 17, 1),
        (.low, 18, 2),
        (.quartile, 11, 1),
        (.high, 7, 1),
        (.high, 8, 2),
        (.medium, 213, 10),
        (.medium, 214, 11),
        (.medium, 0, 1),
        (.low, 2953, 40),
        (.medium, 2331, 40),
        (.high, 1273, 40),
    ])
    func smallestVersion(level: QRCode.ErrorCorrectionLevel, byteCount: Int, version: Int) throws {
        let code = try QRCode(encoding: [UInt8](repeating: 0x5A, count: byteCount), errorCorrection: level)
        #expect(code.version == version)
        #expect(code.size == 4 * version + 17)
        #expect(code.errorCorrection == level)
    }

    @Test func tooLongThrows() {
        #expect(throws: QRCodeError.dataTooLong(byteCount: 2332, maximumByteCount: 2331, errorCorrection: .medium)) {
            try QRCode(encoding: [UInt8](repeating: 0, count: 2332))
        }
        #expect(throws: QRCodeError.dataTooLong(byteCount: 2954, maximumByteCount: 2953, errorCorrection: .low)) {
            try QRCode(encoding: [UInt8](repeating: 0, count: 2954), errorCorrection: .low)
        }
        let error = QRCodeError.dataTooLong(byteCount: 1300, maximumByteCount: 1273, errorCorrection: .high)
        #expect(error.description.contains("1300 bytes"))
        #expect(error.description.contains("level H"))
    }

    /// A ~200-character pairing link fits version 10 at M, so its terminal rendering fits 80 columns.
    @Test func pairingLinkSize() throws {
        let link = "huddle:pair?" + String(repeating: "id=Xk3v9QmZp2LrT8wYb6NcA1sD4fG7hJ0uE5iO&", count: 5)
        #expect((150...250).contains(link.utf8.count))
        let code = try QRCode(encoding: link)
        #expect(code.version <= 10)
        #expect(code.size + 4 <= 80)
    }
}
