import HuddleQR
import Testing

/// The half-block rendering, read back into modules.
@Suite("Terminal rendering")
struct TerminalTextTests {
    /// Reads the text back: each character gives the ink of two module rows; in the default rendering ink is
    /// light, inverted it is dark. Returns the dark modules of the symbol with its quiet zone, row by row.
    static func darkModules(of text: String, inverted: Bool) throws -> [[Bool]] {
        var upper: [[Bool]] = []
        var lower: [[Bool]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var top: [Bool] = []
            var bottom: [Bool] = []
            for character in line {
                switch character {
                case "\u{2588}": (top, bottom) = (top + [true], bottom + [true])
                case "\u{2580}": (top, bottom) = (top + [true], bottom + [false])
                case "\u{2584}": (top, bottom) = (top + [false], bottom + [true])
                case " ": (top, bottom) = (top + [false], bottom + [false])
                default: throw TextError(message: "unexpected character \(character)")
                }
            }
            upper.append(top)
            lower.append(bottom)
        }
        var rows: [[Bool]] = []
        for (top, bottom) in zip(upper, lower) {
            rows.append(top.map { $0 == inverted })
            rows.append(bottom.map { $0 == inverted })
        }
        return rows
    }

    struct TextError: Error { let message: String }

    /// The symbol with a light quiet zone of `quietZone` modules, row by row, `true` dark.
    static func expectedModules(_ code: QRCode, quietZone: Int) -> [[Bool]] {
        let side = code.size + 2 * quietZone
        return (0..<side).map { y in
            (0..<side).map { x in
                let (moduleX, moduleY) = (x - quietZone, y - quietZone)
                return (0..<code.size).contains(moduleX) && (0..<code.size).contains(moduleY)
                    && code.isDark(x: moduleX, y: moduleY)
            }
        }
    }

    @Test(arguments: [(0, false), (2, false), (2, true), (3, false), (4, true)])
    func roundTrip(quietZone: Int, inverted: Bool) throws {
        let link = "huddle:pair?id=Xk3v9QmZp2LrT8wYb6NcA1sD4fG7hJ0uE5iO&name=Alice%E2%80%99s%20laptop"
        for level in QRCode.ErrorCorrectionLevel.allCases {
            let code = try QRCode(encoding: link, errorCorrection: level)
            let text = code.terminalText(quietZone: quietZone, inverted: inverted)
            let side = code.size + 2 * quietZone
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == (side + 1) / 2)
            #expect(lines.allSatisfy { $0.count == side })
            var modules = try Self.darkModules(of: text, inverted: inverted)
            // The symbol has an odd number of rows: the last line's lower half is the terminal's background,
            // never ink.
            let padding = modules.removeLast()
            #expect(padding.allSatisfy { $0 == !inverted })
            #expect(modules == Self.expectedModules(code, quietZone: quietZone))
        }
    }

    /// In the default rendering the quiet zone is ink (light on a dark terminal); inverted it is blank.
    @Test func defaultDrawsLightModulesAsBlocks() throws {
        let code = try QRCode(encoding: "x")
        let lines = code.terminalText().split(separator: "\n")
        #expect(lines[0] == Substring(String(repeating: "\u{2588}", count: code.size + 4)))
        let inverted = code.terminalText(inverted: true).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(inverted[0] == Substring(String(repeating: " ", count: code.size + 4)))
        // The second line holds module rows 0 and 1 under the quiet zone: from the left, two quiet zone columns
        // (light over light), the finder's left edge (dark over dark), then its top edge over its light ring.
        #expect(lines[1].hasPrefix("\u{2588}\u{2588} \u{2584}"))
        #expect(inverted[1].hasPrefix("  \u{2588}\u{2580}"))
    }

    /// A 250-byte pairing link at M is version 11 (61 modules): 65 columns with the default quiet zone.
    @Test func fitsEightyColumns() throws {
        let code = try QRCode(encoding: [UInt8](repeating: 0x41, count: 250))
        #expect(code.version == 11)
        let text = code.terminalText()
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 80 })
        #expect(!text.hasSuffix("\n"))
    }
}
