public import HuddleWire

/// `reply`: one PING's PONG came back (`rttMs`), or none did within the timeout (`rttMs` left out); `kind` is
/// `unreliable` (a datagram) or `reliable` (TLS).
public struct PingReplyRecord: Encodable, Sendable, Equatable {
    public var event = "reply"
    public var kind: PingRun.Kind
    public var seq: Int
    public var bytes: Int
    public var rttMs: Double?

    public init(kind: PingRun.Kind, sequence: Int, roundTrip: Duration?, size: Int) {
        (self.kind, self.seq, self.bytes, self.rttMs) = (kind, sequence, size, roundTrip.map(Self.milliseconds))
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
    }
}

/// `summary`: the run's figures; `loss` is a fraction (0.1 is 10 %), the times are nil without replies.
public struct PingSummaryRecord: Encodable, Sendable, Equatable {
    public var event = "summary"
    public var kind: PingRun.Kind
    public var sent: Int
    public var received: Int
    public var loss: Double
    public var rttP50Ms: Double?
    public var rttP99Ms: Double?
    public var jitterMs: Double

    public init(_ tally: PingTally, kind: PingRun.Kind) {
        (self.kind, sent, received, loss) = (kind, tally.sent, tally.received, tally.loss)
        rttP50Ms = tally.percentile(0.5).map(PingReplyRecord.milliseconds)
        rttP99Ms = tally.percentile(0.99).map(PingReplyRecord.milliseconds)
        jitterMs = PingReplyRecord.milliseconds(tally.jitter)
    }

    /// `--- Bob udp: 10 sent, 9 received, 10% loss; round trip p50 0.41 ms, p99 1.2 ms, jitter 0.05 ms`.
    func text(_ name: String) -> String {
        let percent = PingRun.rounded(loss * 100)
        var text = "--- \(name) \(kind.shown): \(sent) sent, \(received) received, \(percent)% loss"
        if let rttP50Ms, let rttP99Ms {
            text += "; round trip p50 \(PingRun.rounded(rttP50Ms)) ms, p99 \(PingRun.rounded(rttP99Ms)) ms"
            text += ", jitter \(PingRun.rounded(jitterMs)) ms"
        }
        return text
    }
}
