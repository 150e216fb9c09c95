import HuddleWire
import NIOCore

/// Any bytes → the control message decoder (HELLO, CONNECT_REQUEST, SAS_*, DECISION, …). Whatever decodes must
/// encode and decode again to an equal message (docs/security.md §5 A2).
public func fuzzControlMessages(_ input: UnsafeRawBufferPointer) throws(FuzzInvariantViolation) {
    guard let message = try? PeerControlMessage(decoding: ByteBuffer(bytes: input)) else { return }
    let again = try? PeerControlMessage(decoding: ByteBuffer(bytes: message.encoded()))
    try require(again == message, "a decoded control message did not survive encode → decode")
}
