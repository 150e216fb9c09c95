/// Whether a link's unreliable messages go on UDP or on the TLS stream (`docs/realtime.md`, "When UDP does not get
/// through"). Every PING goes on UDP, whatever the choice; this rule only watches their PONGs:
///
/// - before any PONG, UDP is `unconfirmed` and messages still go on it;
/// - once ``unansweredLimit`` PINGs in a row, the first of them ``unansweredSpan`` ago or more, got no PONG, the
///   link falls back to the stream (`tls`): a packet filter that drops the datagram port, a NAT that forgot the
///   mapping;
/// - the next PONG brings it back to `udp`.
///
/// Pure: time comes in as `now`, a monotonic duration since any fixed start.
public struct DatagramPathChoice: Hashable, Sendable {
    public enum Path: String, Hashable, Sendable {
        case udp
        case unconfirmed
        case tls
    }

    /// PINGs in a row without a PONG before the link falls back.
    public static let unansweredLimit = 5
    /// The least time from the first of them to now: PINGs sent close together (`huddle ping --interval 0.01`)
    /// are not all late just because they are many.
    public static let unansweredSpan = Duration.seconds(3)

    /// PINGs sent since the latest PONG, and when the first of them went.
    public private(set) var unanswered = 0
    private var firstUnanswered: Duration?
    private var confirmed = false

    public init() {}

    /// A PING went out at `now`.
    public mutating func pinged(now: Duration) {
        unanswered += 1
        if firstUnanswered == nil { firstUnanswered = now }
    }

    /// A PONG came back.
    public mutating func answered() {
        (unanswered, firstUnanswered, confirmed) = (0, nil, true)
    }

    /// The path at `now`.
    public func path(now: Duration) -> Path {
        if unanswered >= Self.unansweredLimit, let first = firstUnanswered, now - first >= Self.unansweredSpan {
            return .tls
        }
        return confirmed ? .udp : .unconfirmed
    }
}
