import Foundation

extension Sequence<UInt8> {
    /// Lower-case hex.
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
