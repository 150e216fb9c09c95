/// A QR code symbol (ISO/IEC 18004:2015, Model 2) holding a payload of bytes.
///
/// The payload is encoded as one byte-mode segment (7.4.5) in the smallest version, 1 to 40, that holds it at the
/// chosen error correction level. Of the eight data masks the one with the lowest penalty (7.8.3) is applied.
///
/// ```swift
/// let code = try QRCode(encoding: Array("huddle:pair?id=…".utf8))
/// print(code.terminalText())
/// let png = code.png()
/// ```
public struct QRCode: Sendable, Hashable {
    /// The symbol version, 1 to 40: version v is 4v + 17 modules on a side (5.3.1).
    public let version: Int
    /// The error correction level the symbol was made with.
    public let errorCorrection: ErrorCorrectionLevel
    /// The data mask pattern applied, 0 to 7 (7.8.2, Table 10).
    public let mask: Int
    /// Modules per side, without the quiet zone.
    public let size: Int
    private let modules: [Bool]

    /// Encodes `bytes` in the smallest version that holds them at `errorCorrection`.
    ///
    /// - Throws: ``QRCodeError/dataTooLong(byteCount:maximumByteCount:errorCorrection:)`` when even version 40
    ///   cannot hold them.
    public init(encoding bytes: [UInt8], errorCorrection: ErrorCorrectionLevel = .medium) throws(QRCodeError) {
        try self.init(encoding: bytes, errorCorrection: errorCorrection, version: nil, mask: nil)
    }

    /// Encodes the UTF-8 bytes of `text` (with no ECI header: readers take byte-mode data as UTF-8 or ISO 8859-1
    /// by guessing, and ASCII, such as a URL, reads the same either way).
    public init(encoding text: String, errorCorrection: ErrorCorrectionLevel = .medium) throws(QRCodeError) {
        try self.init(encoding: Array(text.utf8), errorCorrection: errorCorrection)
    }

    /// Encodes `bytes`, in `version` when given (which must hold them) and with `mask` when given; otherwise as
    /// the public initializer chooses. Tests use it to reach every version and mask.
    init(
        encoding bytes: [UInt8],
        errorCorrection: ErrorCorrectionLevel,
        version fixedVersion: Int?,
        mask fixedMask: Int?
    ) throws(QRCodeError) {
        let chosenVersion =
            fixedVersion ?? QRBlockLayout.smallestVersion(holding: bytes.count, errorCorrection: errorCorrection)
        guard let version = chosenVersion else {
            let maximum = QRBlockLayout(version: 40, errorCorrection: errorCorrection).byteCapacity
            throw .dataTooLong(byteCount: bytes.count, maximumByteCount: maximum, errorCorrection: errorCorrection)
        }
        let layout = QRBlockLayout(version: version, errorCorrection: errorCorrection)
        guard bytes.count <= layout.byteCapacity else {
            throw .dataTooLong(
                byteCount: bytes.count,
                maximumByteCount: layout.byteCapacity,
                errorCorrection: errorCorrection
            )
        }
        let dataCodewords = QRCodewordSequence.dataCodewords(for: bytes, layout: layout)
        var unmasked = QRModuleMatrix(version: version)
        QRDataPlacement.place(
            QRCodewordSequence.interleaved(dataCodewords: dataCodewords, layout: layout),
            in: &unmasked
        )

        // Every mask is tried on a copy, with its format information drawn, and scored; the first lowest wins.
        var chosen = (mask: 0, matrix: unmasked)
        var lowestPenalty = Int.max
        for mask in fixedMask.map({ [$0] }) ?? Array(0...7) {
            var candidate = unmasked
            QRMasking.apply(mask: mask, to: &candidate)
            candidate.drawFormatInformation(
                QRFormatInformation.formatBits(errorCorrection: errorCorrection, mask: mask)
            )
            let penalty = fixedMask == nil ? QRMasking.penalty(of: candidate) : 0
            if penalty < lowestPenalty {
                chosen = (mask, candidate)
                lowestPenalty = penalty
            }
        }
        self.version = version
        self.errorCorrection = errorCorrection
        self.mask = chosen.mask
        self.size = chosen.matrix.size
        self.modules = chosen.matrix.modules
    }

    /// Whether the module in column `x`, row `y` (both from 0 at the top left, less than ``size``) is dark.
    public func isDark(x: Int, y: Int) -> Bool {
        precondition((0..<self.size).contains(x) && (0..<self.size).contains(y), "module (\(x), \(y)) is outside")
        return self.modules[y * self.size + x]
    }

    /// The modules row by row, top first; `true` is dark.
    public var rows: [[Bool]] {
        (0..<self.size).map { y in Array(self.modules[(y * self.size)..<((y + 1) * self.size)]) }
    }
}
