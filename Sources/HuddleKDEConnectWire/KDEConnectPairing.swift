/// The pairing of one KDE Connect device (docs/kdeconnect.md, "Pairing"), without I/O: time comes in as seconds.
///
/// A request, ours or theirs, waits 30 s for the other side's answer. Only a person accepts a request from the
/// device (or `--yes`, which pins on first use); a `pair: true` that answers nothing asked is a new request.
public struct KDEConnectPairing: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        case unpaired
        /// We asked at `since` (with `timestamp` in the packet).
        case requested(since: Double, timestamp: Int64)
        /// They asked at `since`; the user has not answered.
        case asked(since: Double, timestamp: Int64?)
        case paired
    }

    /// What to do after an input.
    public enum Action: Sendable, Hashable {
        case send(pair: Bool, timestamp: Int64?)
        /// Tell the user the device asks to pair.
        case askUser(timestamp: Int64?)
        case paired
        case unpaired
        /// A request timed out or was refused.
        case failed(String)
    }

    public private(set) var state: State
    public static let timeout: Double = 30

    public init(paired: Bool) { state = paired ? .paired : .unpaired }

    /// The user (or a command) asks to pair; `timestamp` is now in seconds since 1970.
    public mutating func request(at now: Double, timestamp: Int64) -> [Action] {
        switch state {
        case .paired: return [.paired]
        case .asked:
            // They asked already: asking back is accepting.
            state = .paired
            return [.send(pair: true, timestamp: nil), .paired]
        case .unpaired, .requested:
            state = .requested(since: now, timestamp: timestamp)
            return [.send(pair: true, timestamp: timestamp)]
        }
    }

    /// The user answered the device's request.
    public mutating func answer(accept: Bool) -> [Action] {
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
    public mutating func received(pair: Bool, timestamp: Int64?, at now: Double) -> [Action] {
        let lapsed = tick(at: now)
        return lapsed + take(pair: pair, timestamp: timestamp, at: now)
    }

    private mutating func take(pair: Bool, timestamp: Int64?, at now: Double) -> [Action] {
        switch (state, pair) {
        case (.requested, true):
            state = .paired
            return [.paired]
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
    public mutating func tick(at now: Double) -> [Action] {
        switch state {
        case .requested(let since, _) where now - since >= Self.timeout:
            state = .unpaired
            return [.failed("the device did not answer within 30 s")]
        case .asked(let since, _) where now - since >= Self.timeout:
            state = .unpaired
            return [.failed("the request lapsed unanswered")]
        default:
            return []
        }
    }

    /// The timestamp the verification key uses (version 8): the request's.
    public var requestTimestamp: Int64? {
        switch state {
        case .requested(_, let timestamp): timestamp
        case .asked(_, let timestamp): timestamp
        default: nil
        }
    }
}
