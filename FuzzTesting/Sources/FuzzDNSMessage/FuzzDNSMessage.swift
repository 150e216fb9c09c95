import HuddleDNS
import NIOCore

/// Any bytes → the DNS message decoder (RFC 1035 §4, RFC 6762 §18). Whatever decodes must encode and decode
/// again to an equal message (the round-trip rule of docs/security.md §5 A2).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let buffer = ByteBuffer(bytes: UnsafeRawBufferPointer(start: start, count: count))
    guard let message = try? DNSMessageDecoder().decode(buffer) else { return 0 }
    let again = try? DNSMessageDecoder().decode(message.encoded())
    precondition(again == message, "a decoded DNS message did not survive encode → decode")
    return 0
}
