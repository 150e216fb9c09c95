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

    /// A stamp for a local event at wall-clock reading `now` (milliseconds), newer than everything seen so far.
    public mutating func tick(now: UInt64) -> ClipStamp {
        if now > time {
            time = now
            counter = 0
        } else {
            counter = Self.bumped(counter)
        }
        return ClipStamp(time: time, counter: counter, origin: origin)
    }

    /// Takes in a stamp received from another machine, so that later local stamps are newer than it.
    public mutating func witness(_ stamp: ClipStamp, now: UInt64) {
        let latest = max(time, stamp.time, now)
        switch latest {
        case time where latest == stamp.time:
            counter = Self.bumped(max(counter, stamp.counter))
        case time:
            counter = Self.bumped(counter)
        case stamp.time:
            counter = Self.bumped(stamp.counter)
        default:
            counter = 0
        }
        time = latest
    }

    /// One more, saturating: a hostile stamp near the top cannot make the clock trap (``ClipboardSyncCore`` refuses
    /// such stamps before they get here).
    static func bumped(_ counter: UInt32) -> UInt32 {
        counter == .max ? .max : counter + 1
    }
}
