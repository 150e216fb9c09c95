extension QRCode {
    /// The symbol drawn with Unicode half blocks, two module rows per line of text, so that modules come out about
    /// square in a terminal whose character cells are twice as tall as wide.
    ///
    /// Each character stands for the module above (its upper half) and the one below (its lower half): `█` both,
    /// `▀` the upper only, `▄` the lower only, a space neither. What the glyph's ink stands for depends on the
    /// terminal:
    ///
    /// - `inverted: false` (the default) is for the usual light-on-dark terminal: the ink, drawn in the light
    ///   foreground colour, marks the **light** modules and the quiet zone, and the dark background shows through
    ///   as the dark modules. A dark-on-light terminal shows it as a negative, which many readers refuse.
    /// - `inverted: true` is for a dark-on-light terminal: the ink marks the **dark** modules and the light
    ///   background shows through as the light ones and the quiet zone.
    ///
    /// The quiet zone (ISO/IEC 18004:2015, 6.3.8, asks for 4 modules) defaults to 2 here: round a terminal the
    /// window's own border and background widen it, and 2 keeps a version 10 symbol (57 modules, a 213-byte
    /// payload at level M) within 61 columns. An odd number of module rows leaves the last line's lower half empty.
    ///
    /// - Returns: The lines, each `size + 2 × quietZone` characters wide, joined by `"\n"`, without a final newline.
    public func terminalText(quietZone: Int = 2, inverted: Bool = false) -> String {
        precondition(quietZone >= 0, "the quiet zone cannot be negative")
        let side = self.size + 2 * quietZone
        /// Whether the glyph's ink covers the module at (x, y) of the symbol with its quiet zone.
        func ink(_ x: Int, _ y: Int) -> Bool {
            guard y < side else { return false }  // below the last module row: the terminal's background
            let symbolX = x - quietZone
            let symbolY = y - quietZone
            let inSymbol = (0..<self.size).contains(symbolX) && (0..<self.size).contains(symbolY)
            let dark = inSymbol && self.isDark(x: symbolX, y: symbolY)
            return dark == inverted
        }
        var lines: [String] = []
        for top in stride(from: 0, to: side, by: 2) {
            var line = ""
            line.unicodeScalars.reserveCapacity(side)
            for x in 0..<side {
                switch (ink(x, top), ink(x, top + 1)) {
                case (true, true): line.unicodeScalars.append("\u{2588}")  // █ full block
                case (true, false): line.unicodeScalars.append("\u{2580}")  // ▀ upper half block
                case (false, true): line.unicodeScalars.append("\u{2584}")  // ▄ lower half block
                case (false, false): line.unicodeScalars.append(" ")
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

extension QRCode {
    /// The lines of ``terminalText(quietZone:inverted:)`` for a symbol that encodes `text`; none when `text` does
    /// not fit in a QR code (the caller has printed it as text already).
    public static func terminalLines(encoding text: String, inverted: Bool = false) -> [String] {
        guard let code = try? QRCode(encoding: text) else { return [] }
        return code.terminalText(inverted: inverted).split(separator: "\n").map(String.init)
    }
}
