/// The pairing of one KDE Connect device (docs/kdeconnect.md, "Pairing"), without I/O: time comes in as instants of the caller's clock.
///
/// A request, ours or theirs, waits 30 s for the other side's answer. Only a person accepts a request from the
/// device (or `--yes`, which pins on first use); a `pair: true` that answers nothing asked is a new request. When
/// the device accepts ours, a person here confirms too, having compared the verification key, before it counts as
/// paired: the device's yes alone pairs nothing. A device's request whose timestamp is more than 30 minutes from
/// this clock is refused (version 8 binds the key to it).
public struct KDEConnectPairing: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        case unpaired
        /// We asked at `since` (with `timestamp` in the packet).
        case requested(since: ContinuousClock.Instant, timestamp: Int64)
        /// They asked at `since`; the user has not answered.
        case asked(since: ContinuousClock.Instant, timestamp: Int64?)
        /// They accepted our request at `since`; the user here has not confirmed the key yet.
        case confirming(since: ContinuousClock.Instant, timestamp: Int64)
        case paired
    }

    /// What to do after an input.
    public enum Action: Sendable, Hashable {
        case send(pair: Bool, timestamp: Int64?)
        /// Tell the user the device asks to pair.
        case askUser(timestamp: Int64?)
        /// Tell the user the device accepted our request: does it show the same key?
        case confirmUser(timestamp: Int64)
        case paired
        case unpaired
        /// A request timed out or was refused.
        case failed(String)
    }

    public private(set) var state: State
    public static let timeout: Duration = .seconds(30)
    /// How far a device's request timestamp may be from this clock, in seconds.
    public static let timestampTolerance: Int64 = 30 * 60

    public init(paired: Bool) { state = paired ? .paired : .unpaired }

    /// The user (or a command) asks to pair; `timestamp` is now in seconds since 1970.
    public mutating func request(at now: ContinuousClock.Instant, timestamp: Int64) -> [Action] {
        switch state {
        case .paired: return [.paired]
        case .confirming: return []
        case .asked:
            // They asked already: asking back is accepting.
            state = .paired
            return [.send(pair: true, timestamp: nil), .paired]
        case .unpaired, .requested:
            state = .requested(since: now, timestamp: timestamp)
            return [.send(pair: true, timestamp: timestamp)]
        }
    }

    /// The user answered the device's request, or confirmed (or not) the key of a request of ours it accepted.
    public mutating func answer(accept: Bool) -> [Action] {
        if case .confirming = state {
            // The device is paired on its side already: a yes here only completes it; a no tells it.
            if accept {
                state = .paired
                return [.paired]
            }
            state = .unpaired
            return [.send(pair: false, timestamp: nil), .failed("the verification key was not confirmed here")]
        }
        guard case .asked = state else { return [] }
        if accept {
            state = .paired
            return [.send(pair: true, timestamp: nil), .paired]
        }
        state = .unpaired
        return [.send(pair: false, timestamp: nil), .unpaired]
    }

    /// A `kdeconnect.pair` packet arrived.
    ///
    /// A request that lapsed before it came is ended first, as the next tick would have ended it: a `pair: true`
    /// 30 s or more after our request, or a device's request repeated that late, is a new request of the device's.
    ///
    /// - Parameter clock: this machine's time in seconds since 1970, to check a request's timestamp against; nil
    ///   checks nothing.
    public mutating func received(
        pair: Bool,
        timestamp: Int64?,
        at now: ContinuousClock.Instant,
        clock: Int64? = nil
    ) -> [Action] {
        let lapsed = tick(at: now)
        return lapsed + take(pair: pair, timestamp: timestamp, at: now, clock: clock)
    }

    private mutating func take(
        pair: Bool,
        timestamp: Int64?,
        at now: ContinuousClock.Instant,
        clock: Int64?
    ) -> [Action] {
        switch (state, pair) {
        case (.requested(_, let sent), true):
            state = .confirming(since: now, timestamp: sent)
            return [.confirmUser(timestamp: sent)]
        case (.confirming, true):
            return []
        case (.confirming, false):
            state = .unpaired
            return [.failed("the device withdrew its yes")]
        case (.unpaired, true) where Self.isStale(timestamp, clock: clock):
            return [.send(pair: false, timestamp: nil)]
        case (.requested, false):
            state = .unpaired
            return [.failed("the device refused to pair")]
        case (.unpaired, true):
            state = .asked(since: now, timestamp: timestamp)
            return [.askUser(timestamp: timestamp)]
        case (.asked, true):
            state = .asked(since: now, timestamp: timestamp)
            return []
        case (.asked, false):
            state = .unpaired
            return [.failed("the device withdrew its request")]
        case (.paired, true):
            // Asked again by a device that is paired here (it forgot us): it is still paired.
            return [.send(pair: true, timestamp: nil)]
        case (.paired, false):
            state = .unpaired
            return [.unpaired]
        case (.unpaired, false):
            return []
        }
    }

    /// Time passed: a request older than 30 s lapses.
    public mutating func tick(at now: ContinuousClock.Instant) -> [Action] {
        switch state {
        case .requested(let since, _) where since.duration(to: now) >= Self.timeout:
            state = .unpaired
            return [.failed("the device did not answer within 30 s")]
        case .asked(let since, _) where since.duration(to: now) >= Self.timeout:
            state = .unpaired
            return [.failed("the request lapsed unanswered")]
        case .confirming(let since, _) where since.duration(to: now) >= Self.timeout:
            state = .unpaired
            return [.send(pair: false, timestamp: nil), .failed("the verification key was not confirmed within 30 s")]
        default:
            return []
        }
    }

    /// The timestamp the verification key uses (version 8): the request's.
    public var requestTimestamp: Int64? {
        switch state {
        case .requested(_, let timestamp): timestamp
        case .asked(_, let timestamp): timestamp
        case .confirming(_, let timestamp): timestamp
        default: nil
        }
    }

    /// A request timestamp more than ``timestampTolerance`` from `clock`.
    static func isStale(_ timestamp: Int64?, clock: Int64?) -> Bool {
        guard let timestamp, let clock else { return false }
        let difference = timestamp.subtractingReportingOverflow(clock)
        return difference.overflow || difference.partialValue.magnitude > UInt64(timestampTolerance)
    }
}
