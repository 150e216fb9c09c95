/// Text laid out in terminal columns: the width a string takes in cells, and padding to a column's width.
package enum TerminalColumns {
    /// Pads to a column width in terminal cells (longer text is kept whole; the next column moves right).
    package static func pad(_ text: String, _ width: Int) -> String {
        let cells = self.width(of: text)
        return cells >= width ? text : text + String(repeating: " ", count: width - cells)
    }

    /// Terminal cells a string takes: two for East Asian wide characters (CJK, Hangul, full-width forms), none for
    /// combining marks and zero-width characters.
    package static func width(of text: String) -> Int {
        text.unicodeScalars.reduce(0) { total, scalar in
            switch scalar.value {
            case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
                0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x20000...0x3FFFD:
                return total + 2
            case 0x0300...0x036F, 0x200B...0x200F:
                return total
            default:
                return total + 1
            }
        }
    }
}
