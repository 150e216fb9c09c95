import HuddleWire
import NIOCore

/// Any bytes → the transfer message decoder (offers, answers, chunks, directory manifests), then the checks a
/// receiver applies: names and manifests (docs/security.md §5 A5). Whatever decodes must round-trip; every path
/// a manifest check lets through must stay strictly inside the destination: no empty, `.` or `..` component, no
/// NUL, no leading `/`, each component at most 255 bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let buffer = ByteBuffer(bytes: UnsafeRawBufferPointer(start: start, count: count))
    guard let message = try? TransferMessage(decoding: buffer) else { return 0 }
    var encoded = ByteBuffer()
    message.encode(into: &encoded)
    precondition((try? TransferMessage(decoding: encoded)) == message, "a transfer message did not round-trip")
    switch message {
    case .offer(let offer):
        if let name = try? TransferName.validate(offer.name) { checkInside([name]) }
    case .directoryOffer(let offer):
        guard (try? offer.validate()) != nil else { return 0 }
        if let name = try? TransferName.validate(offer.name) { checkInside([name]) }
        for entry in offer.entries {
            guard let parts = try? TransferPath.components(of: entry.path) else {
                preconditionFailure("a validated manifest holds a path the path check refuses: \(entry.path)")
            }
            checkInside(parts)
        }
    default:
        break
    }
    return 0
}

func checkInside(_ components: [String]) {
    for part in components {
        precondition(!part.isEmpty && part != "." && part != "..", "a path component escapes: \(part)")
        precondition(!part.utf8.contains(0) && !part.contains("/"), "a component holds NUL or a separator")
        precondition(part.utf8.count <= 255, "a component longer than 255 bytes")
    }
}
