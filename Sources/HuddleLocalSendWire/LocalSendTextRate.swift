import HuddleWire

/// How often one address may send a text (docs/localsend.md, "Receiving"). Pure: time comes in as instants of the
/// caller's clock.
///
/// A text is a question to the user, and each question holds the inbox (other senders get 409 meanwhile), so a
/// flood of texts is a flood of questions: beyond ``LocalSendLimits/textsPerMinute`` from one address in any 60 s,
/// a text is refused without asking. At most ``maximumAddresses`` addresses are remembered; when all of them sent
/// within the minute, texts from new addresses are refused too (a flood from many addresses is bounded as well).
public struct LocalSendTextRate: Sendable {
    public let limit: Int
    public let window: Duration
    public let maximumAddresses: Int
    var recent: RateWindow<String, ContinuousClock.Instant>

    public init(limits: LocalSendLimits = .init(), window: Duration = .seconds(60), maximumAddresses: Int = 256) {
        self.limit = limits.textsPerMinute
        self.window = window
        self.maximumAddresses = maximumAddresses
        self.recent = RateWindow(limit: limits.textsPerMinute)
    }

    /// Whether a text from `host` at `now` may be asked about; counts it when it may.
    public mutating func mayTake(from host: String, at now: ContinuousClock.Instant) -> Bool {
        let start = now - window
        guard recent.allows(host, after: start) else { return false }
        if !recent.contains(host), recent.keyCount >= maximumAddresses {
            recent.forget(before: start)
            guard recent.keyCount < maximumAddresses else { return false }
        }
        recent.record(host, at: now)
        return true
    }
}
