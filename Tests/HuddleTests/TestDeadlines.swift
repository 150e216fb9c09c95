import Huddle
import NIOConcurrencyHelpers

/// The result of `task`, or nil when it has not ended within `seconds` (it is then left to end on its own): a
/// test that waits for a call which, on broken code, never returns fails instead of hanging.
func result<T: Sendable>(of task: Task<T, any Error>, within seconds: Double = 30) async -> Result<T, any Error>? {
    let once = FirstOnly()
    return await withCheckedContinuation { continuation in
        Task {
            let value = await task.result
            if once.first() { continuation.resume(returning: value) }
        }
        Task {
            try? await Task.sleep(for: .seconds(seconds))
            if once.first() { continuation.resume(returning: nil) }
        }
    }
}

/// Whether a sender's call ended with ``PeerSessionError/transferDeclined(_:)``.
func declined<T>(_ result: Result<T, any Error>) -> Bool {
    if case .failure(PeerSessionError.transferDeclined) = result { return true }
    return false
}

/// True for the first caller only.
final class FirstOnly: Sendable {
    private let done = NIOLockedValueBox(false)

    func first() -> Bool {
        done.withLockedValue { done in
            defer { done = true }
            return !done
        }
    }
}
