import NIOConcurrencyHelpers

/// A clock that moves only when a test moves it, for code that takes a `Clock` or a `now`.
///
/// `sleep(until:)` returns once `advance(by:)` has moved the clock to or past the deadline; nothing waits
/// for real time.
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol, Sendable {
        /// Time since the clock was made.
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [UInt64: Sleeper] = [:]
        var nextSleeper: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())
    /// One event per sleeper that starts waiting.
    private let sleeps = EventRecorder<Void>()

    public init() {}

    public var now: Instant { state.withLockedValue { $0.now } }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// How many sleepers are waiting: lets a test wait until the code under test has gone to sleep.
    public var sleeperCount: Int { state.withLockedValue { $0.sleepers.count } }

    /// The earliest deadline a sleeper waits for, if any: lets a test wake exactly the next one.
    public var nextDeadline: Instant? { state.withLockedValue { $0.sleepers.values.map(\.deadline).min() } }

    /// Moves the clock forward, waking every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due = state.withLockedValue { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for key in due.keys { state.sleepers.removeValue(forKey: key) }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLockedValue { state -> UInt64 in
            defer { state.nextSleeper += 1 }
            return state.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLockedValue { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) } else { sleeps.record(()) }
            }
        } onCancel: { [state] in
            let sleeper = state.withLockedValue { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}

extension ManualClock {
    /// Waits (on real time, up to `timeout`) until at least `count` sleepers wait on this clock: the code under
    /// test has reached its sleep, so advancing now wakes it. Returns false when they did not within `timeout`.
    public func waitForSleepers(_ count: Int, within timeout: Duration = .seconds(30)) async -> Bool {
        if sleeperCount >= count { return true }
        return await sleeps.first(within: timeout) { _ in self.sleeperCount >= count ? true : nil } ?? false
    }
}
