/// The square of modules of one symbol under construction, with a second square that marks the function modules
/// (finder, separator, timing and alignment patterns, format and version information), which data placement and
/// masking leave alone (ISO/IEC 18004:2015, 6.3).
///
/// `x` is the column and `y` the row, both counted from the top left corner.
struct QRModuleMatrix: Sendable, Hashable {
    let version: Int
    let size: Int
    private(set) var modules: [Bool]
    private(set) var functionModules: [Bool]

    /// A matrix with every function pattern of `version` drawn and the format information area reserved (drawn
    /// light until ``drawFormatInformation(_:)``).
    init(version: Int) {
        precondition((1...40).contains(version), "QR code versions run from 1 to 40")
        self.version = version
        self.size = 4 * version + 17
        self.modules = Array(repeating: false, count: self.size * self.size)
        self.functionModules = Array(repeating: false, count: self.size * self.size)
        self.drawTimingPatterns()
        self.drawFinderPatterns()
        self.drawAlignmentPatterns()
        self.drawFormatInformation(0)
        if version >= 7 { self.drawVersionInformation() }
    }

    func isDark(x: Int, y: Int) -> Bool { self.modules[y * self.size + x] }

    func isFunction(x: Int, y: Int) -> Bool { self.functionModules[y * self.size + x] }

    /// Sets a module that carries data; function modules are refused.
    mutating func setData(x: Int, y: Int, dark: Bool) {
        precondition(!self.isFunction(x: x, y: y), "data cannot overwrite a function module")
        self.modules[y * self.size + x] = dark
    }

    /// Inverts a module that carries data (masking, 7.8.2).
    mutating func flipData(x: Int, y: Int) {
        precondition(!self.isFunction(x: x, y: y), "masks leave function modules alone")
        self.modules[y * self.size + x].toggle()
    }

    private mutating func setFunction(x: Int, y: Int, dark: Bool) {
        self.modules[y * self.size + x] = dark
        self.functionModules[y * self.size + x] = true
    }

    /// Row 6 and column 6 alternate dark and light, dark on even coordinates (6.3.5). Drawn across the whole
    /// symbol first; the finder patterns then cover both ends.
    private mutating func drawTimingPatterns() {
        for index in 0..<self.size {
            self.setFunction(x: 6, y: index, dark: index % 2 == 0)
            self.setFunction(x: index, y: 6, dark: index % 2 == 0)
        }
    }

    /// The three 7 × 7 finder patterns (concentric squares 7, 5 and 3 modules wide) with their one-module light
    /// separators (6.3.3, 6.3.4).
    private mutating func drawFinderPatterns() {
        let centres = [(3, 3), (self.size - 4, 3), (3, self.size - 4)]
        for (centreX, centreY) in centres {
            for dy in -4...4 {
                for dx in -4...4 {
                    let x = centreX + dx
                    let y = centreY + dy
                    guard (0..<self.size).contains(x), (0..<self.size).contains(y) else { continue }
                    let ring = max(abs(dx), abs(dy))
                    self.setFunction(x: x, y: y, dark: ring != 2 && ring != 4)
                }
            }
        }
    }

    /// The 5 × 5 alignment patterns at every pairing of the centre coordinates of Annex E, except the three that
    /// would overlap a finder pattern (6.3.6).
    private mutating func drawAlignmentPatterns() {
        let centres = QRVersionTables.alignmentPatternCentres[self.version - 1]
        guard let first = centres.first, let last = centres.last else { return }
        for centreY in centres {
            for centreX in centres {
                let overlapsFinder =
                    (centreX == first && centreY == first) || (centreX == first && centreY == last)
                    || (centreX == last && centreY == first)
                if overlapsFinder { continue }
                for dy in -2...2 {
                    for dx in -2...2 {
                        self.setFunction(x: centreX + dx, y: centreY + dy, dark: max(abs(dx), abs(dy)) != 1)
                    }
                }
            }
        }
    }

    /// Writes the 15 format information bits twice, beside the top left finder and split between the other two,
    /// with the dark module at (8, size − 8) (7.9.1, Figure 25). Bit 0 is the least significant.
    mutating func drawFormatInformation(_ bits: Int) {
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 != 0 }
        // Around the top left finder: bits 0–5 down column 8, then 6–8 round the corner (skipping the timing
        // patterns), then bits 9–14 leftwards along row 8.
        for index in 0...5 { self.setFunction(x: 8, y: index, dark: bit(index)) }
        self.setFunction(x: 8, y: 7, dark: bit(6))
        self.setFunction(x: 8, y: 8, dark: bit(7))
        self.setFunction(x: 7, y: 8, dark: bit(8))
        for index in 9...14 { self.setFunction(x: 14 - index, y: 8, dark: bit(index)) }
        // The second copy: bits 0–7 along row 8 from the right edge, bits 8–14 up column 8 to the bottom edge.
        for index in 0...7 { self.setFunction(x: self.size - 1 - index, y: 8, dark: bit(index)) }
        for index in 8...14 { self.setFunction(x: 8, y: self.size - 15 + index, dark: bit(index)) }
        self.setFunction(x: 8, y: self.size - 8, dark: true)
    }

    /// Writes the 18 version information bits in the 6 × 3 blocks beside the top right and bottom left finders
    /// (7.10, Figure 27): bit i sits at row i / 3, column size − 11 + i % 3 in the top right block, transposed in
    /// the bottom left one.
    private mutating func drawVersionInformation() {
        let bits = QRFormatInformation.versionBits(version: self.version)
        for index in 0..<18 {
            let dark = (bits >> index) & 1 != 0
            let near = index / 3
            let far = self.size - 11 + index % 3
            self.setFunction(x: far, y: near, dark: dark)
            self.setFunction(x: near, y: far, dark: dark)
        }
    }
}
