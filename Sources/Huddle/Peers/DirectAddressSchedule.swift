/// When a session introduces itself at one direct address (``PeerAddress``), and what it then reports: the peer
/// found there, a peer gone or replaced by a restart, a failure worth telling the user (`docs/design.md`, "Peers
/// beyond the link").
///
/// Pure: time comes in as `now`. The session asks ``shouldIntroduce(now:peer:)`` every
/// ``Configuration/pollInterval`` and hands each introduction's outcome to ``introduced(_:now:)`` or
/// ``failed(_:now:)``.
struct DirectAddressSchedule {
    struct Configuration: Sendable {
        /// The wait after the first failure; it doubles after each further one, up to ``longestRetry``.
        var firstRetry: Duration = .seconds(1)
        var longestRetry: Duration = .seconds(30)
        /// How often to look again at a peer found there while it is not connected: a restart gives it a new
        /// instance, which only a new introduction learns.
        var recheck: Duration = .seconds(30)
        /// Failures in a row after which the peer found there is reported lost.
        var lostAfterFailures = 3
        /// How often the session asks the schedule.
        var pollInterval: Duration = .seconds(1)
    }

    /// What an introduction's outcome changes.
    struct Step: Equatable {
        var sightings: [PeerDirectoryEvent] = []
        /// A failure to tell the user: the first one, and each whose reason differs from the last told.
        var report: PeerSessionError?
    }

    let configuration: Configuration
    /// The peer that answered last, while it is taken to be there.
    private(set) var found: PeerAdvert?
    private(set) var failures = 0
    private var nextIntroduction: ContinuousClock.Instant?
    /// When the peer last answered.
    private var lastIntroduction: ContinuousClock.Instant?
    private var lastReported: PeerSessionError?

    init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// What the session knows of the peer found at the address.
    struct PeerStatus: Equatable {
        var connected = false
        /// When its last connection ended, if it had one.
        var disconnectedAt: ContinuousClock.Instant?
    }

    /// Whether to introduce this side at the address now. Never while the peer found there is connected; at once
    /// when its connection ended after the last introduction (it may have restarted, as a new instance, which only
    /// an introduction learns); otherwise when the wait is over.
    mutating func shouldIntroduce(now: ContinuousClock.Instant, peer status: PeerStatus) -> Bool {
        if found != nil {
            if status.connected { return false }
            if let ended = status.disconnectedAt, let last = lastIntroduction, ended >= last { return true }
        }
        guard let next = nextIntroduction else { return true }
        return now >= next
    }

    /// The peer `advert` answered: report it found (after its predecessor at the address, lost), and look again
    /// after ``Configuration/recheck`` unless it connects.
    mutating func introduced(_ advert: PeerAdvert, now: ContinuousClock.Instant) -> Step {
        var step = Step()
        if let old = found, old.peer != advert.peer { step.sightings.append(.lost(old.peer)) }
        if found != advert { step.sightings.append(.found(advert)) }
        found = advert
        lastIntroduction = now
        failures = 0
        lastReported = nil
        nextIntroduction = now + configuration.recheck
        return step
    }

    /// The introduction failed: wait longer each time; after ``Configuration/lostAfterFailures`` in a row the peer
    /// found there is lost.
    mutating func failed(_ error: PeerSessionError, now: ContinuousClock.Instant) -> Step {
        var step = Step()
        failures += 1
        if let old = found, failures >= configuration.lostAfterFailures {
            step.sightings.append(.lost(old.peer))
            found = nil
        }
        if error != lastReported {
            step.report = error
            lastReported = error
        }
        nextIntroduction = now + retryDelay(after: failures)
        return step
    }

    /// ``Configuration/firstRetry`` doubled for each failure after the first, at most
    /// ``Configuration/longestRetry``.
    func retryDelay(after failures: Int) -> Duration {
        var delay = configuration.firstRetry
        for _ in 1..<max(failures, 1) where delay < configuration.longestRetry { delay *= 2 }
        return min(delay, configuration.longestRetry)
    }
}
