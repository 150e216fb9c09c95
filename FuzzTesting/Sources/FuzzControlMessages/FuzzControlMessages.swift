import HuddleWire
import NIOCore

/// Any bytes → the control message decoder (HELLO, CONNECT_REQUEST, SAS_*, DECISION, …). Whatever decodes must
/// encode and decode again to an equal message (docs/security.md §5 A2).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let buffer = ByteBuffer(bytes: UnsafeRawBufferPointer(start: start, count: count))
    guard let message = try? PeerControlMessage(decoding: buffer) else { return 0 }
    let again = try? PeerControlMessage(decoding: ByteBuffer(bytes: message.encoded()))
    precondition(again == message, "a decoded control message did not survive encode → decode")
    return 0
}
