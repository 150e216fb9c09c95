package import HuddleWire

extension TransferID {
    /// 16 fresh random bytes.
    package static func random() -> Self { TransferID(bytes: (0..<16).map { _ in UInt8.random(in: 0...255) }) }
}
