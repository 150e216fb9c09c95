/// How many pairing runs a session lets start, and when (`docs/threat-model.md`, "The pairing budget").
///
/// A pairing run starts when the responder sends its nonce: from then on the initiator can compute the six-digit
/// code, and a man in the middle could give up silently and try again until the code on one side matches the code
/// on the other. Every run is one draw at 10⁻⁶, so the number of runs is what bounds the attack. The handshake
/// therefore asks for a run (``PeerHandshake/Action/openPairingRun``) before it sends a nonce or a commitment, and
/// only a granted run goes on. The rules:
///
/// - **One pairing at a time.** Runs with one device only. Two runs with the same device at once are allowed when
///   one is ours and one is theirs (both sides dialled at the same moment: one pairing, and the duplicate
///   tie-break keeps one connection); a second run of the same role with the same device is refused.
/// - **Per source.** A device key or a network address starts at most one new run every
///   ``Configuration/interval`` (2 s).
/// - **Failures pause pairing.** A run that ends without a completed, accepted pairing is a failure. After
///   ``Configuration/maximumFailures`` (5) failures within ``Configuration/failureWindow``, no run starts for
///   ``Configuration/pause`` (60 s), and the caller is told once, naming the source most failures came from.
/// - **Pauses in a row grow.** Each pause that follows another without a completed pairing between them, and
///   without a ``Configuration/quietPeriod`` (a day) free of failures, lasts twice the one before, up to
///   ``Configuration/maximumPause`` (2 h).
///
/// So at most `maximumFailures` runs and one more in flight fit in any `pause` long window: six draws a minute,
/// a chance of at most 6 × 10⁻⁶ for a man in the middle to match one user's code while it is on screen. And the
/// total is bounded, not only the rate: grinding without end gets six draws per 2 h once the pauses are at their
/// longest, 72 a day, at most 600 in the first week (`PairingBudgetRuleTests`), a chance below 6 × 10⁻⁴ a week.
///
/// Pure: time comes in as `now`; the caller serialises the calls.
public struct PairingBudget: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// Least time between two new runs from one source.
        public var interval: Duration = .seconds(2)
        /// Failed runs that pause pairing.
        public var maximumFailures = 5
        /// How long failures are remembered.
        public var failureWindow: Duration = .seconds(600)
        /// How long pairing pauses after `maximumFailures` failures, the first time.
        public var pause: Duration = .seconds(60)
        /// The longest pause: each pause in a row lasts twice the one before, up to this.
        public var maximumPause: Duration = .seconds(2 * 3600)
        /// A time with no failure after which pauses start again from `pause`.
        public var quietPeriod: Duration = .seconds(24 * 3600)

        public init() {}
    }

    /// Where a run comes from: the peer's device key, and its network address (``addressKey(_:)``) when known.
    public struct Source: Hashable, Sendable, CustomStringConvertible {
        public var device: DeviceID
        public var address: String?

        public init(device: DeviceID, address: String?) {
            self.device = device
            self.address = address
        }

        public var description: String { address ?? "device \(device.shortID)" }
    }

    /// A granted run; hand it back to ``close(_:paired:now:)`` exactly once.
    public struct Run: Hashable, Sendable {
        let number: UInt64
        public let source: Source
        public let role: PeerRole
    }

    public enum Refusal: Hashable, Sendable {
        /// A pairing with another device is in progress.
        case pairingInProgress
        /// This source started a run less than ``Configuration/interval`` ago.
        case tooSoon(retryAt: ContinuousClock.Instant)
        /// Pairing is paused after failed runs.
        case paused(until: ContinuousClock.Instant)
    }

    public enum Decision: Hashable, Sendable {
        case granted(Run)
        case refused(Refusal)
    }

    /// Pairing paused: what to tell the user.
    public struct Pause: Hashable, Sendable, CustomStringConvertible {
        /// The failed runs that caused it.
        public var failures: Int
        /// The source most of them came from.
        public var source: String
        public var duration: Duration

        public var description: String {
            "\(failures) pairing attempts from \(source) were abandoned: pausing new pairings for "
                + (duration < .seconds(120)
                    ? "\(duration.components.seconds) s" : "\(duration.components.seconds / 60) min")
        }
    }

    public let configuration: Configuration
    /// The device being paired and the runs with it in flight.
    private var current: Pairing?
    private var lastStart: [String: ContinuousClock.Instant] = [:]
    private var failures: [(at: ContinuousClock.Instant, source: Source)] = []
    private var pausedUntil: ContinuousClock.Instant?
    private var nextNumber: UInt64 = 0
    /// Pauses in a row (no completed pairing, no quiet period between them), and when the last failure was.
    private var pausesInARow = 0
    private var lastFailure: ContinuousClock.Instant?

    /// The runs with one device, in flight together.
    private struct Pairing: Sendable {
        var device: DeviceID
        var runs: [Run] = []
        var paired = false
        /// The sources of the runs that ended unpaired; failures once the pairing ends unpaired.
        var failed: [Source] = []
    }

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Runs in flight now.
    public var runsInFlight: Int { current?.runs.count ?? 0 }

    /// Whether a run from `source` would be granted now; changes nothing.
    public func check(_ source: Source, role: PeerRole, now: ContinuousClock.Instant) -> Refusal? {
        if let until = pausedUntil, now < until { return .paused(until: until) }
        if let current {
            guard current.device == source.device, !current.runs.contains(where: { $0.role == role }) else {
                return .pairingInProgress
            }
            return nil  // the other half of a simultaneous dial
        }
        let retryAt = Self.keys(of: source).compactMap { lastStart[$0] }.max().map { $0 + configuration.interval }
        if let retryAt, now < retryAt { return .tooSoon(retryAt: retryAt) }
        return nil
    }

    /// Charges a run before its nonce (or commitment) is sent.
    public mutating func open(_ source: Source, role: PeerRole, now: ContinuousClock.Instant) -> Decision {
        if let refusal = check(source, role: role, now: now) { return .refused(refusal) }
        pausedUntil = nil
        lastStart = lastStart.filter { now < $0.value + configuration.interval }
        for key in Self.keys(of: source) { lastStart[key] = now }
        nextNumber += 1
        let run = Run(number: nextNumber, source: source, role: role)
        var pairing = current ?? Pairing(device: source.device)
        pairing.runs.append(run)
        current = pairing
        return .granted(run)
    }

    /// The run ended: `paired` when the pairing completed and both sides accepted; `drewCode` when the
    /// responder's nonce was sent or received (an initiator's run refused before it drew nothing and is no
    /// failure). Returns the pause this starts, if it does.
    public mutating func close(
        _ run: Run,
        paired: Bool,
        drewCode: Bool = true,
        now: ContinuousClock.Instant
    ) -> Pause? {
        guard var pairing = current, let index = pairing.runs.firstIndex(of: run) else { return nil }
        pairing.runs.remove(at: index)
        pairing.paired = pairing.paired || paired
        if !paired && drewCode { pairing.failed.append(run.source) }
        // A simultaneous dial is settled when both its runs are: a run that lost the tie-break to one that
        // paired is no failure; if neither paired, both count.
        guard pairing.runs.isEmpty else {
            current = pairing
            return nil
        }
        current = nil
        guard !pairing.paired else {
            pausesInARow = 0
            return nil
        }
        if let last = lastFailure, !pairing.failed.isEmpty, last.duration(to: now) >= configuration.quietPeriod {
            pausesInARow = 0
        }
        if !pairing.failed.isEmpty { lastFailure = now }
        failures += pairing.failed.map { (now, $0) }
        let window = configuration.failureWindow
        failures.removeAll { $0.at.duration(to: now) > window }
        guard failures.count >= configuration.maximumFailures else { return nil }
        let duration = pauseLength(after: pausesInARow)
        pausesInARow += 1
        pausedUntil = now + duration
        let counts = Dictionary(grouping: failures, by: \.source.description).mapValues(\.count)
        let source = counts.max { ($0.value, $1.key) < ($1.value, $0.key) }!.key
        let pause = Pause(failures: failures.count, source: source, duration: duration)
        failures.removeAll()
        return pause
    }

    /// `pause` doubled once for each pause before it in a row, at most `maximumPause`.
    func pauseLength(after earlier: Int) -> Duration {
        var length = configuration.pause
        for _ in 0..<min(earlier, 62) where length < configuration.maximumPause { length *= 2 }
        return min(length, configuration.maximumPause)
    }

    private static func keys(of source: Source) -> [String] {
        ["device " + source.device.description] + (source.address.map { ["address " + $0] } ?? [])
    }
}
