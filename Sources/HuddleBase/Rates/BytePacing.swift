import NIOConcurrencyHelpers

/// One ``RatePacer`` shared by every transfer it paces, with the wait (docs/design.md, "Bandwidth limits"): the
/// LocalSend and KDE Connect transfers of one way share one, so together they stay within the limit. A transfer
/// counts each chunk before it goes (a sender) or after it came (a receiver, which reads on only when the wait is
/// over, so the other side is held back by TCP).
public final class BytePacing: Sendable {
    public let rate: ByteRate
    private let pacer: NIOLockedValueBox<RatePacer>

    public init(rate: ByteRate) {
        self.rate = rate
        pacer = NIOLockedValueBox(RatePacer(rate: rate))
    }

    /// Counts `bytes` about to go at `now` (``RatePacer/admit(_:now:)``): nil when they may go now, else when.
    public func admit(_ bytes: Int, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        pacer.withLockedValue { $0.admit(bytes, now: now) }
    }

    /// Counts `bytes` and sleeps until they may go.
    /// - Throws: `CancellationError` when the task is cancelled while it waits.
    public func pace(_ bytes: Int) async throws {
        guard let until = admit(bytes, now: .now) else { return }
        try await Task.sleep(until: until, clock: .continuous)
    }
}

/// The pacers of one bandwidth limit each way (nil: that way is not limited). A session paces its own transfers'
/// totals with them and hands them to the foreign protocols started beside it, so that Huddle, LocalSend and
/// KDE Connect transfers together stay within one limit.
public struct TransferPacers: Sendable {
    public var sending: BytePacing?
    public var receiving: BytePacing?

    /// One pacer each way at `rate`; none without a rate.
    public init(rate: ByteRate? = nil) {
        self.init(sending: rate, receiving: rate)
    }

    /// A pacer for each way that has a rate.
    public init(sending: ByteRate?, receiving: ByteRate?) {
        self.sending = sending.map(BytePacing.init(rate:))
        self.receiving = receiving.map(BytePacing.init(rate:))
    }
}
