/// The time a session's rules read and its timers wait on: the monotonic clock (``SystemSessionClock``), or, in
/// tests, one they move by hand. The rules take `now` from it; the reconnect schedule, the redelivery window, a
/// `connect` call's deadline and its waits, the pairing budget and a transfer offer's decision deadline all sleep
/// on it.
///
/// Test-only API (`@_spi(Testing)`): apps always use the monotonic clock.
@_spi(Testing) public protocol SessionClock: Sendable {
    var now: ContinuousClock.Instant { get }
    /// Returns at `deadline`; throws `CancellationError` when the task is cancelled first.
    func sleep(until deadline: ContinuousClock.Instant) async throws
}

/// The monotonic clock.
struct SystemSessionClock: SessionClock {
    var now: ContinuousClock.Instant { .now }

    func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await Task.sleep(until: deadline, clock: .continuous)
    }
}
