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

    /// Counts `bytes` and sleeps until they may go.
    /// - Throws: `CancellationError` when the task is cancelled while it waits.
    public func pace(_ bytes: Int) async throws {
        guard let until = pacer.withLockedValue({ $0.admit(bytes, now: .now) }) else { return }
        try await Task.sleep(until: until, clock: .continuous)
    }
}

/// The pacers of one bandwidth limit each way, for the foreign protocols (nil: that way is not limited).
public struct TransferPacers: Sendable {
    public var sending: BytePacing?
    public var receiving: BytePacing?

    /// One pacer each way at `rate`; none without a rate.
    public init(rate: ByteRate? = nil) {
        sending = rate.map(BytePacing.init(rate:))
        receiving = rate.map(BytePacing.init(rate:))
    }
}
