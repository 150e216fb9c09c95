extension QRCode {
    /// How much of the symbol is given to Reed–Solomon error correction (ISO/IEC 18004:2015, 7.5.1).
    ///
    /// A higher level survives more damage, smudges and glare but needs a larger symbol for the same payload.
    public enum ErrorCorrectionLevel: Sendable, Hashable, CaseIterable {
        /// L: about 7 % of the codewords can be restored.
        case low
        /// M: about 15 %; the usual choice for a screen.
        case medium
        /// Q: about 25 %.
        case quartile
        /// H: about 30 %.
        case high

        /// The letter the standard names the level by.
        public var letter: Character {
            switch self {
            case .low: "L"
            case .medium: "M"
            case .quartile: "Q"
            case .high: "H"
            }
        }

        /// The two bits that stand for the level in the format information (Table 12): L 01, M 00, Q 11, H 10.
        var formatIndicator: Int {
            switch self {
            case .low: 0b01
            case .medium: 0b00
            case .quartile: 0b11
            case .high: 0b10
            }
        }
    }
}
