/// How often one address may send a text (docs/localsend.md, "Receiving"). Pure: time comes in as seconds on the
/// caller's clock.
///
/// A text is a question to the user, and each question holds the inbox (other senders get 409 meanwhile), so a
/// flood of texts is a flood of questions: beyond ``LocalSendLimits/textsPerMinute`` from one address in any 60 s,
/// a text is refused without asking. At most ``maximumAddresses`` addresses are remembered; when all of them sent
/// within the minute, texts from new addresses are refused too (a flood from many addresses is bounded as well).
public struct LocalSendTextRate: Sendable {
    public let limit: Int
    public let window: Double
    public let maximumAddresses: Int
    var recent: [String: [Double]] = [:]

    public init(limits: LocalSendLimits = .init(), window: Double = 60, maximumAddresses: Int = 256) {
        self.limit = limits.textsPerMinute
        self.window = window
        self.maximumAddresses = maximumAddresses
    }

    /// Whether a text from `host` at `now` may be asked about; counts it when it may.
    public mutating func mayTake(from host: String, at now: Double) -> Bool {
        var times = (recent[host] ?? []).filter { now - $0 < window }
        guard times.count < limit else {
            recent[host] = times
            return false
        }
        if recent[host] == nil, recent.count >= maximumAddresses {
            recent = recent.filter { entry in entry.value.contains { now - $0 < window } }
            guard recent.count < maximumAddresses else { return false }
        }
        times.append(now)
        recent[host] = times
        return true
    }
}
