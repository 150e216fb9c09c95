/// When and where a clipboard item was copied, in an order every machine agrees on.
///
/// A hybrid logical clock reading (Kulkarni et al., "Logical Physical Clocks", 2014): `time` follows the wall clock
/// in milliseconds but never runs backwards and never falls behind a stamp already seen; `counter` orders events
/// within one millisecond. A copy made after seeing another machine's item is therefore always newer than that
/// item, however far the two wall clocks disagree. Copies that did not see each other are ordered by wall time,
/// then by `origin` (the copying session's instance), so simultaneous copies still pick the same winner everywhere.
public struct ClipStamp: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970, as the clock saw them (the physical part).
    public var time: UInt64
    /// Orders stamps that share `time` (the logical part).
    public var counter: UInt32
    /// The session instance that made the copy: the tie-break.
    public var origin: String

    public init(time: UInt64, counter: UInt32, origin: String) {
        self.time = time
        self.counter = counter
        self.origin = origin
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.time, lhs.counter, lhs.origin) < (rhs.time, rhs.counter, rhs.origin)
    }

    public var description: String { "\(time).\(counter)@\(origin)" }
}

/// A hybrid logical clock: the source of ``ClipStamp``s for one session.
///
/// Pure: the caller passes the wall-clock reading, so tests drive it with any clocks they like.
public struct HybridLogicalClock: Sendable {
    public let origin: String
    /// The latest time the clock has issued or seen.
    public private(set) var time: UInt64 = 0
    public private(set) var counter: UInt32 = 0

    public init(origin: String) {
        self.origin = origin
    }

    /// The largest counter the clock issues, and the largest ``ClipboardSyncCore`` accepts from a peer: 2²⁴, which
    /// local copies reach only with millions of copies in one millisecond.
    ///
    /// When the counter would pass it, the clock moves on to the next millisecond with the counter at 0 instead.
    /// A stamp received with its counter at the limit must not push the clock past what every machine accepts: one
    /// such stamp from a paired peer used to make each machine that took it issue counters above the limit, which
    /// the others then refused, so sync between honest machines stopped until their wall clocks passed the stamp.
    public static let maximumCounter: UInt32 = 1 << 24

    /// A stamp for a local event at wall-clock reading `now` (milliseconds), newer than everything seen so far.
    public mutating func tick(now: UInt64) -> ClipStamp {
        if now > time {
            time = now
            counter = 0
        } else {
            (time, counter) = Self.reading(after: time, counter)
        }
        return ClipStamp(time: time, counter: counter, origin: origin)
    }

    /// Takes in a stamp received from another machine, so that later local stamps are newer than it.
    public mutating func witness(_ stamp: ClipStamp, now: UInt64) {
        let latest = max(time, stamp.time, now)
        let last: UInt32
        switch latest {
        case time where latest == stamp.time:
            last = max(counter, stamp.counter)
        case time:
            last = counter
        case stamp.time:
            last = stamp.counter
        default:
            (time, counter) = (latest, 0)
            return
        }
        (time, counter) = Self.reading(after: latest, last)
    }

    /// The next reading after (`time`, `counter`): one more on the counter, or the next millisecond with the
    /// counter at 0 when the counter is at ``maximumCounter`` (or above it: a hostile stamp, which
    /// ``ClipboardSyncCore`` refuses before it gets here). Saturates at the last millisecond, so it never traps.
    static func reading(after time: UInt64, _ counter: UInt32) -> (time: UInt64, counter: UInt32) {
        if counter < maximumCounter { return (time, counter + 1) }
        if time == .max { return (time, maximumCounter) }
        return (time + 1, 0)
    }
}
