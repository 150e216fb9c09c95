/// Paces bytes to a ``ByteRate``, the generic cell rate algorithm's virtual scheduling (ITU-T I.371, Annex 1)
/// with bytes for cells: each batch of bytes pushes a "paid until" time forward by the time it takes at the rate,
/// and a batch may go once "paid until" is no more than ``tolerance`` ahead of now. Over any stretch of time at
/// most rate × time + what fits in the tolerance goes; a pause does not save up a burst beyond the tolerance.
///
/// Pure: the caller passes the time (a test's by hand), and waits itself.
public struct RatePacer: Sendable, Equatable {
    public let rate: ByteRate
    /// How far ahead of now the paid-until time may run before the next batch waits: the burst allowed.
    public let tolerance: Duration
    /// Until when the bytes counted so far are paid for; nil before the first.
    public private(set) var paidUntil: ContinuousClock.Instant?

    public init(rate: ByteRate, tolerance: Duration = .milliseconds(250)) {
        self.rate = rate
        self.tolerance = tolerance
    }

    /// Counts `bytes` about to go at `now`.
    /// - Returns: when they may go: nil for now, else the instant to wait until.
    public mutating func admit(_ bytes: Int, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        let start = max(paidUntil ?? now, now)
        paidUntil = start + rate.duration(of: bytes)
        let mayGo = start - tolerance
        return mayGo > now ? mayGo : nil
    }
}
