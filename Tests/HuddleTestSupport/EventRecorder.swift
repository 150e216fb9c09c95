import NIOConcurrencyHelpers

/// Records the events of something under test and lets a test await the one it needs.
///
/// A waiter is woken by each new event and looks only at what it has not seen yet; nothing polls. Every wait
/// has a deadline, so a test of broken code fails with a clear `nil` instead of hanging. The deadline is a
/// limit on how long to wait, never a claim that something happens in time: a passing test takes as long as
/// the awaited event takes.
public final class EventRecorder<Event: Sendable>: Sendable {
    private struct Waiter {
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        /// Events recorded since the last `clear()`; the first of them has index `base` in the whole record.
        var events: [Event] = []
        var base = 0
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
        var finished = false
    }

    private let state = NIOLockedValueBox(State())
    private let feeder = NIOLockedValueBox<Task<Void, Never>?>(nil)

    public init() {}

    /// Records every element of `sequence` in the background until it ends or the recorder is stopped.
    public init<S: AsyncSequence & Sendable>(recording sequence: S) where S.Element == Event {
        let task = Task { [state] in
            do {
                for try await event in sequence { Self.append(event, to: state) }
            } catch {}
            Self.finish(state)
        }
        feeder.withLockedValue { $0 = task }
    }

    deinit { stop() }

    /// Stops reading the sequence given to `init(recording:)`.
    public func stop() {
        feeder.withLockedValue { $0?.cancel() }
    }

    /// Records `event`, waking every waiter.
    public func record(_ event: Event) {
        Self.append(event, to: state)
    }

    /// A sink for APIs that report events through a closure.
    public var sink: @Sendable (Event) -> Void {
        { [state] event in Self.append(event, to: state) }
    }

    /// Everything recorded since the last `clear()`, oldest first.
    public var events: [Event] { state.withLockedValue { $0.events } }

    /// Forgets what was recorded so far; later waits look only at events recorded after this call.
    public func clear() {
        state.withLockedValue { state in
            state.base += state.events.count
            state.events.removeAll()
        }
    }

    /// Waits for the first event matching `predicate` (as ``first(within:where:)``), then forgets it and all
    /// recorded before it. A plain ``clear()`` forgets only what has reached the recorder: an event the code under
    /// test emitted a moment earlier may still be on its way and be recorded after the clear, where a later wait
    /// for the same kind of event would take it for a new one. The sequence keeps its order, so once `predicate`'s
    /// event is here, everything emitted before it is too. Returns false, forgetting nothing, when none matched
    /// within `timeout`.
    public func clear(within timeout: Duration = .seconds(30), through predicate: (Event) -> Bool) async -> Bool {
        let start = state.withLockedValue { $0.base }
        var looked = 0
        let found =
            await first(within: timeout) { event -> Bool? in
                looked += 1
                return predicate(event) ? true : nil
            } ?? false
        guard found else { return false }
        state.withLockedValue { state in
            let drop = min(max(start + looked - state.base, 0), state.events.count)
            state.events.removeFirst(drop)
            state.base += drop
        }
        return true
    }

    /// The first value `match` finds among the events recorded since the last `clear()` (earlier ones
    /// included), waiting for new events until `timeout` has passed; `nil` when none matched by then.
    public func first<T>(within timeout: Duration = .seconds(30), where match: (Event) -> T?) async -> T? {
        let deadline = ContinuousClock.now + timeout
        var seen = state.withLockedValue { $0.base }
        while true {
            let (fresh, next) = state.withLockedValue { state -> ([Event], Int) in
                let start = max(seen, state.base) - state.base
                return (Array(state.events[start...]), state.base + state.events.count)
            }
            seen = next
            if let found = fresh.lazy.compactMap(match).first { return found }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return nil }
            guard await awaitEvent(after: next, until: deadline) else {
                // One last look: an event may have arrived with the deadline.
                let late = state.withLockedValue { state -> [Event] in
                    let start = max(seen, state.base) - state.base
                    return Array(state.events[start...])
                }
                return late.lazy.compactMap(match).first
            }
        }
    }

    /// Whether an event matching `predicate` was recorded within `timeout`.
    public func contains(within timeout: Duration = .seconds(30), where predicate: (Event) -> Bool) async -> Bool {
        await first(within: timeout) { predicate($0) ? true : nil } ?? false
    }

    /// Waits until at least `count` events match `predicate`, returning whether they did within `timeout`.
    public func count(
        atLeast count: Int,
        within timeout: Duration = .seconds(30),
        where predicate: (Event) -> Bool
    ) async -> Bool {
        var matched = 0
        return await first(within: timeout) { event -> Bool? in
            if predicate(event) { matched += 1 }
            return matched >= count ? true : nil
        } ?? false
    }

    /// Returns true once the record holds more than `count` events in all (counting cleared ones), false when
    /// `deadline` passed, the feeding sequence ended, or the task was cancelled first.
    private func awaitEvent(after count: Int, until deadline: ContinuousClock.Instant) async -> Bool {
        let id = state.withLockedValue { state -> UInt64 in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        let timer = Task { [state] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            Self.wake(id, in: state)
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLockedValue { state -> Bool in
                    if state.base + state.events.count > count || state.finished || Task.isCancelled { return true }
                    state.waiters[id] = Waiter(continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: { [state] in
            Self.wake(id, in: state)
        }
        return state.withLockedValue { $0.base + $0.events.count > count }
    }

    private static func append(_ event: Event, to state: NIOLockedValueBox<State>) {
        let waiters = state.withLockedValue { state -> [Waiter] in
            state.events.append(event)
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.continuation.resume() }
    }

    private static func finish(_ state: NIOLockedValueBox<State>) {
        let waiters = state.withLockedValue { state -> [Waiter] in
            state.finished = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.continuation.resume() }
    }

    private static func wake(_ id: UInt64, in state: NIOLockedValueBox<State>) {
        let waiter = state.withLockedValue { $0.waiters.removeValue(forKey: id) }
        waiter?.continuation.resume()
    }
}
