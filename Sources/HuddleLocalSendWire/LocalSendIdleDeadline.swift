/// When an accepted LocalSend session ends for want of uploads (docs/localsend.md, "Receiving"). Pure: time comes
/// in as instants of the caller's clock.
///
/// The inbox takes one session at a time and answers every other offer 409 meanwhile, so a sender that is
/// accepted and then uploads nothing would keep the inbox for as long as the command runs. A session whose
/// uploads made no progress for ``limit`` has expired: the next offer or upload ends it. 60 s is long
/// enough for a phone to start its uploads after the answer (they start at once) and for a stalled network to
/// come back, and short enough that a stuck session is not mistaken for "busy" for long.
public struct LocalSendIdleDeadline: Sendable, Hashable {
    public let limit: Duration
    public private(set) var lastProgress: ContinuousClock.Instant

    public init(startedAt now: ContinuousClock.Instant, limit: Duration = .seconds(60)) {
        self.limit = limit
        self.lastProgress = now
    }

    /// Bytes of an upload arrived (or an upload started) at `now`.
    public mutating func progressed(at now: ContinuousClock.Instant) { lastProgress = max(lastProgress, now) }

    /// Whether the session has gone ``limit`` without progress at `now`.
    public func hasExpired(at now: ContinuousClock.Instant) -> Bool { lastProgress.duration(to: now) >= limit }
}
