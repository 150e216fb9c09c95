/// Splits a byte stream into packet lines, refusing any line longer than `limit` (a peer that never sends a
/// newline costs at most that much memory).
public struct KDEConnectLines: Sendable {
    public let limit: Int
    var pending: [UInt8] = []

    public init(limit: Int) { self.limit = limit }

    /// Adds bytes; returns the complete lines they finish (without newlines; empty lines skipped).
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(KDEConnectPacketError) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        for byte in bytes {
            if byte == 0x0A {
                if !pending.isEmpty { lines.append(pending) }
                pending.removeAll(keepingCapacity: true)
            } else {
                guard pending.count < limit else { throw .tooLong(limit: limit) }
                pending.append(byte)
            }
        }
        return lines
    }
}
