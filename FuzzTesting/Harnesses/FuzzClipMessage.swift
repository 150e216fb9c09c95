import HuddleClipboard

/// Any bytes → the clipboard message decoder (HCL1). Whatever decodes must encode and decode to an equal message.
public func fuzzClipMessage(_ input: UnsafeRawBufferPointer) throws(FuzzInvariantViolation) {
    guard let message = try? ClipMessage(decoding: Array(input)) else { return }
    try require((try? ClipMessage(decoding: message.encoded())) == message, "a clip message did not round-trip")
}
