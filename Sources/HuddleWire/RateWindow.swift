/// "At most `limit` in any window of time", per key: the times of each key's recent events. Pure: the caller
/// gives the time on its own clock, and where the window starts (events at or before `start` no longer count).
///
/// The one rule behind the limits on texts, PIN tries, answers and dials of the foreign protocols
/// (docs/localsend.md, "Limits"; docs/kdeconnect.md, "Limits").
public struct RateWindow<Key: Hashable & Sendable, Instant: Comparable & Sendable>: Sendable {
    public let limit: Int
    private var times: [Key: [Instant]] = [:]

    public init(limit: Int) {
        self.limit = limit
    }

    /// How many keys are remembered (those with an event since they were last forgotten).
    public var keyCount: Int { times.count }

    /// Whether `key` is remembered.
    public func contains(_ key: Key) -> Bool { times[key] != nil }

    /// How many events of `key` came after `start`; the older ones are forgotten.
    public mutating func count(_ key: Key, after start: Instant) -> Int {
        guard let all = times[key] else { return 0 }
        let recent = all.filter { $0 > start }
        times[key] = recent.isEmpty ? nil : recent
        return recent.count
    }

    /// Whether `key` has had fewer than `limit` events after `start`.
    public mutating func allows(_ key: Key, after start: Instant) -> Bool {
        count(key, after: start) < limit
    }

    /// Counts an event of `key` at `now`.
    public mutating func record(_ key: Key, at now: Instant) {
        times[key, default: []].append(now)
    }

    /// Forgets every key with no event after `start`.
    public mutating func forget(before start: Instant) {
        times = times.filter { _, events in events.contains { $0 > start } }
    }
}
