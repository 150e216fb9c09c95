import HuddleClipboard

/// Any bytes → the clipboard message decoder (HCL1). Whatever decodes must encode and decode to an equal message.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let message = try? ClipMessage(decoding: bytes) else { return 0 }
    precondition((try? ClipMessage(decoding: message.encoded())) == message, "a clip message did not round-trip")
    return 0
}
