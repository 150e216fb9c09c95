/// Running totals of what a ``DatagramOpener`` did with the packets it was given.
public struct DatagramCounters: Hashable, Sendable {
    /// Packets delivered.
    public var delivered: UInt64 = 0
    /// Packets too short or of an unknown version.
    public var malformed: UInt64 = 0
    /// Packets for another connection ID.
    public var unknownConnectionID: UInt64 = 0
    /// Packets of an epoch we hold no key for (including an expired previous epoch).
    public var unknownEpoch: UInt64 = 0
    /// Packets refused by the replay window: duplicates and packets below it.
    public var replayDropped: UInt64 = 0
    /// Packets whose tag did not verify, plus those refused after the failure limit.
    public var authFailures: UInt64 = 0

    /// All counters at zero.
    public init() {}
}
