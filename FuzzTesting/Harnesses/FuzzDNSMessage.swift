import HuddleDNS
import NIOCore

/// Any bytes → the DNS message decoder (RFC 1035 §4, RFC 6762 §18). Whatever decodes must encode and decode
/// again to an equal message (the round-trip rule of docs/security.md §5 A2).
public func fuzzDNSMessage(_ input: UnsafeRawBufferPointer) throws(FuzzInvariantViolation) {
    guard let message = try? DNSMessageDecoder().decode(ByteBuffer(bytes: input)) else { return }
    let again = try? DNSMessageDecoder().decode(message.encoded())
    try require(again == message, "a decoded DNS message did not survive encode → decode")
}
