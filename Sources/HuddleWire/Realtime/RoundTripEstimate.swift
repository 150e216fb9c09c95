/// A link's smoothed round trip and its variation, from timed samples as TCP keeps them (RFC 6298 §2): the first
/// sample R sets SRTT = R and RTTVAR = R/2; each later one sets RTTVAR = 3/4·RTTVAR + 1/4·|SRTT − R|, then
/// SRTT = 7/8·SRTT + 1/8·R (`docs/realtime.md`, "Link statistics"). Pure: samples come in as durations.
public struct RoundTripEstimate: Hashable, Sendable {
    /// SRTT; nil before the first sample.
    public private(set) var smoothed: Duration?
    /// RTTVAR; nil before the first sample.
    public private(set) var variation: Duration?
    /// The latest sample.
    public private(set) var latest: Duration?
    public private(set) var samples = 0

    public init() {}

    /// Takes one round trip measured.
    public mutating func add(_ sample: Duration) {
        samples += 1
        latest = sample
        guard let srtt = smoothed, let rttvar = variation else {
            smoothed = sample
            variation = sample / 2
            return
        }
        let difference = srtt > sample ? srtt - sample : sample - srtt
        variation = rttvar * 3 / 4 + difference / 4
        smoothed = srtt * 7 / 8 + sample / 8
    }
}

/// What `huddle ping` reports of one run: replies by the id of their ping, then the summary — sent, received, the
/// loss as a fraction, the round trip's median and 99th percentile, and the jitter (RFC 3550 §6.4.1: the mean
/// deviation of successive round trips, J += (|D| − J)/16, over the replies in the order they came).
public struct PingTally: Hashable, Sendable {
    public private(set) var sent = 0
    /// The round trip of each reply, in the order they came; a second reply to the same ping is not counted.
    public private(set) var roundTrips: [Duration] = []
    private var answered: Set<UInt32> = []
    private var outstanding: Set<UInt32> = []
    public private(set) var jitter = Duration.zero

    public init() {}

    public var received: Int { roundTrips.count }

    /// The share of pings that got no reply: 0 before any was sent.
    public var loss: Double { sent == 0 ? 0 : Double(sent - received) / Double(sent) }

    /// Ping `id` went out.
    public mutating func sent(_ id: UInt32) {
        sent += 1
        outstanding.insert(id)
    }

    /// The reply to ping `id` came after `roundTrip`; false (and nothing counted) for a ping never sent or
    /// answered already.
    @discardableResult
    public mutating func replied(_ id: UInt32, after roundTrip: Duration) -> Bool {
        guard outstanding.remove(id) != nil, answered.insert(id).inserted else { return false }
        if let previous = roundTrips.last {
            let difference = previous > roundTrip ? previous - roundTrip : roundTrip - previous
            jitter += (difference - jitter) / 16
        }
        roundTrips.append(roundTrip)
        return true
    }

    /// The round trip below which `fraction` of the replies came (nearest rank); nil without replies.
    public func percentile(_ fraction: Double) -> Duration? {
        guard !roundTrips.isEmpty else { return nil }
        let sorted = roundTrips.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
