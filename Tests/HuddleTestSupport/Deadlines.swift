import NIOConcurrencyHelpers

/// The result of `task`, or nil when it has not ended within `timeout` (it is then cancelled and left to end on
/// its own): a test that waits for a call which, on broken code, never returns fails instead of hanging.
public func result<T: Sendable>(
    of task: Task<T, any Error>,
    within timeout: Duration = .seconds(30)
) async -> Result<T, any Error>? {
    let once = FirstOnly()
    let outcome: Result<T, any Error>? = await withCheckedContinuation { continuation in
        Task {
            let value = await task.result
            if once.first() { continuation.resume(returning: value) }
        }
        Task {
            try? await Task.sleep(for: timeout)
            if once.first() { continuation.resume(returning: nil) }
        }
    }
    if outcome == nil { task.cancel() }
    return outcome
}

/// True for the first caller only.
public final class FirstOnly: Sendable {
    private let done = NIOLockedValueBox(false)

    public init() {}

    public func first() -> Bool {
        done.withLockedValue { done in
            defer { done = true }
            return !done
        }
    }
}
