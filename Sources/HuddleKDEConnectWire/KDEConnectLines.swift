/// Splits a byte stream into packet lines, refusing any line longer than `limit` (a peer that never sends a
/// newline costs at most that much memory).
public struct KDEConnectLines: Sendable {
    /// The longest line taken; a link raises it once the device is known (see ``firstLine(in:)``).
    public var limit: Int
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

    /// Takes bytes up to and including the first newline: the line that newline completes (nil when there is none
    /// yet, or the line is empty) and how many bytes were taken. The rest is for the next call, so that a caller
    /// can change ``limit`` between lines without losing or misjudging the bytes that follow in the same read.
    public mutating func firstLine(
        in bytes: some Collection<UInt8>
    ) throws(KDEConnectPacketError) -> (line: [UInt8]?, consumed: Int) {
        var consumed = 0
        for byte in bytes {
            consumed += 1
            if byte == 0x0A {
                defer { pending.removeAll(keepingCapacity: true) }
                return (pending.isEmpty ? nil : pending, consumed)
            }
            guard pending.count < limit else { throw .tooLong(limit: limit) }
            pending.append(byte)
        }
        return (nil, consumed)
    }
}
