/// When the daemon tries a queued send again (docs/daemon.md, "Outbox"): at once when its device is found, and
/// after a failed try, again after a wait that doubles from ``firstRetry`` up to ``longestRetry`` — so a device
/// that is found but cannot take the file (its disk full, its daemon refusing) is not tried in a tight loop.
///
/// Pure: the caller passes the time (`now`), so the rule is tested on a manual clock.
public struct OutboxSchedule<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    public static var firstRetry: Duration { .seconds(10) }
    public static var longestRetry: Duration { .seconds(300) }

    /// Entries that may be tried now or after the instant given; an entry not here waits for its device.
    var notBefore: [String: Instant] = [:]
    /// Failed tries in a row, per entry.
    var failures: [String: Int] = [:]

    public init() {}

    /// The entry's device was found (or the daemon started): try it as soon as any back-off allows.
    public mutating func found(_ id: String, now: Instant) {
        if notBefore[id] == nil { notBefore[id] = now }
    }

    /// Whether `id` is due at `now`; a due entry is taken off the schedule until ``failed(_:now:)`` or
    /// ``found(_:now:)`` puts it back, so it is never tried twice at once.
    public mutating func takeIfDue(_ id: String, now: Instant) -> Bool {
        guard let due = notBefore[id], due <= now else { return false }
        notBefore[id] = nil
        return true
    }

    /// The try failed: wait before the next.
    public mutating func failed(_ id: String, now: Instant) {
        let count = (failures[id] ?? 0) + 1
        failures[id] = count
        notBefore[id] = now.advanced(by: Self.delay(afterFailures: count))
    }

    /// The entry left the queue (delivered, cancelled).
    public mutating func forget(_ id: String) {
        notBefore[id] = nil
        failures[id] = nil
    }

    /// The earliest instant an entry waits for, to sleep until.
    public var nextDue: Instant? { notBefore.values.min() }

    /// 10 s, 20 s, 40 s, … at most 300 s.
    public static func delay(afterFailures count: Int) -> Duration {
        let doubled = firstRetry * (1 << min(max(count - 1, 0), 16))
        return min(doubled, longestRetry)
    }
}
