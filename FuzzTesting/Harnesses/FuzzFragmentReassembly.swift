import HuddleWire

/// Fragment reassembly (`docs/realtime.md`, "Large unreliable messages") under small limits an input can cross:
/// each 5 bytes of input are one fragment — message number (0–7, so messages collide), index, count (0–80, so
/// some are over the limit), length (× 16 bytes) and time passing (× 4 ms). Each fragment's bytes are its index,
/// repeated, so a rebuilt message shows which fragments went into it.
///
/// Checked after every fragment: the pending messages and bytes stay within the limits and match what is held;
/// a rebuilt message is its fragments in index order (non-decreasing index bytes, each below the count) and
/// within the message limit; a one-fragment message comes back as it was.
public func fuzzFragmentReassembly(_ input: UnsafeRawBufferPointer) throws(FuzzInvariantViolation) {
    var limits = FragmentReassembly.Limits()
    limits.maximumMessageBytes = 2048
    limits.maximumFragments = 64
    limits.maximumPendingMessages = 4
    limits.maximumPendingBytes = 3000
    limits.timeout = .milliseconds(200)
    var reassembly = FragmentReassembly(limits: limits)
    var now = Duration.zero
    let bytes = Array(input)
    for start in stride(from: 0, to: bytes.count - 4, by: 5) {
        let (message, index, count) = (
            UInt32(bytes[start] % 8), UInt16(bytes[start + 1] % 80), UInt16(bytes[start + 2] % 81)
        )
        let length = Int(bytes[start + 3]) * 16
        now += .milliseconds(Int64(bytes[start + 4]) * 4)
        let fragment = FragmentReassembly.Fragment(
            message: message,
            index: index,
            count: count,
            bytes: [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: length)
        )
        let outcome = reassembly.add(fragment, now: now)
        try require(reassembly.pendingMessages <= limits.maximumPendingMessages, "more messages wait than the limit")
        try require(reassembly.pendingBytes <= limits.maximumPendingBytes, "more bytes wait than the limit")
        try require(reassembly.pendingBytes >= 0, "the pending bytes went negative")
        try require(reassembly.pendingMessages > 0 || reassembly.pendingBytes == 0, "bytes held for no message")
        guard case .complete(let rebuilt) = outcome else { continue }
        try require(rebuilt.count <= limits.maximumMessageBytes, "a rebuilt message is over the message limit")
        try require(zip(rebuilt, rebuilt.dropFirst()).allSatisfy { $0 <= $1 }, "fragments out of index order")
        try require(rebuilt.allSatisfy { UInt16($0) < max(count, 1) }, "a fragment from beyond the count")
        if count == 1 { try require(rebuilt == fragment.bytes, "a one-fragment message changed") }
    }
}
