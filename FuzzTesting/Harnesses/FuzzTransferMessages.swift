import HuddleWire
import NIOCore

/// Any bytes → the transfer message decoder (offers, answers, chunks, directory manifests), then the checks a
/// receiver applies: names and manifests (docs/security.md §5 A5). Whatever decodes must round-trip; every path
/// a manifest check lets through must stay strictly inside the destination: no empty, `.` or `..` component, no
/// NUL, no leading `/`, each component at most 255 bytes.
public func fuzzTransferMessages(_ input: UnsafeRawBufferPointer) throws(FuzzInvariantViolation) {
    guard let message = try? TransferMessage(decoding: ByteBuffer(bytes: input)) else { return }
    var encoded = ByteBuffer()
    message.encode(into: &encoded)
    try require((try? TransferMessage(decoding: encoded)) == message, "a transfer message did not round-trip")
    switch message {
    case .offer(let offer):
        if let name = try? TransferName.validate(offer.name) { try requireInside([name]) }
    case .directoryOffer(let offer):
        guard (try? offer.validate()) != nil else { return }
        if let name = try? TransferName.validate(offer.name) { try requireInside([name]) }
        for entry in offer.entries {
            guard let parts = try? TransferPath.components(of: entry.path) else {
                throw violation("a validated manifest holds a path the path check refuses: \(entry.path)")
            }
            try requireInside(parts)
        }
    default:
        break
    }
}

/// Every component stays inside the destination: not empty, `.` or `..`, no NUL or separator, at most 255 bytes.
private func requireInside(_ components: [String]) throws(FuzzInvariantViolation) {
    for part in components {
        try require(!part.isEmpty && part != "." && part != "..", "a path component escapes: \(part)")
        try require(!part.utf8.contains(0) && !part.contains("/"), "a component holds NUL or a separator")
        try require(part.utf8.count <= 255, "a component longer than 255 bytes")
    }
}
