/// Why a QR code could not be made.
public enum QRCodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The payload is longer than the largest symbol (version 40) holds at the chosen error correction level
    /// (ISO/IEC 18004:2015, Table 7): 2953 bytes at L, 2331 at M, 1663 at Q, 1273 at H.
    case dataTooLong(byteCount: Int, maximumByteCount: Int, errorCorrection: QRCode.ErrorCorrectionLevel)

    public var description: String {
        switch self {
        case .dataTooLong(let byteCount, let maximum, let level):
            "\(byteCount) bytes do not fit in a QR code at error correction level \(level.letter): "
                + "the largest symbol (version 40) holds \(maximum) bytes"
        }
    }
}
