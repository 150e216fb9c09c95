/// The last few positions received for one remote player, and the position to draw between them.
///
/// State datagrams arrive at 20 Hz with gaps (losses) and jitter. Drawing each player a little in the past
/// (``interpolationDelayMilliseconds``) lets the screen slide between two received positions instead of jumping.
/// Times are plain milliseconds on any timeline the caller keeps monotonic (arrival times, or the sender's
/// tick × 50 ms); the buffer never reads a clock.
public struct ArenaSnapshotBuffer: Hashable, Sendable {
    /// One received position.
    public struct Snapshot: Hashable, Sendable {
        /// The sender's tick; only a higher one than every kept snapshot is accepted.
        public var sequence: UInt32
        /// When it counts as taken, in milliseconds.
        public var time: Int64
        public var position: ArenaPosition

        public init(sequence: UInt32, time: Int64, position: ArenaPosition) {
            self.sequence = sequence
            self.time = time
            self.position = position
        }
    }

    /// How far behind `now` to draw: 100 ms, two ticks, so one lost datagram still leaves a later one to slide to.
    public static let interpolationDelayMilliseconds: Int64 = 100

    /// Most snapshots kept: 8 by default (400 ms at 20 Hz), far more than the delay needs; memory stays bounded.
    public let capacity: Int
    /// The kept snapshots, oldest first, strictly increasing in sequence and non-decreasing in time.
    public private(set) var snapshots: [Snapshot] = []

    public init(capacity: Int = 8) {
        self.capacity = Swift.max(2, capacity)
    }

    /// Keeps a snapshot unless it is stale.
    ///
    /// A snapshot whose sequence is not above the newest kept one (reordered or duplicated) is ignored. A time
    /// earlier than the newest kept one is raised to it, so times never run backwards.
    ///
    /// - Returns: Whether the snapshot was kept.
    @discardableResult
    public mutating func received(_ position: ArenaPosition, sequence: UInt32, atMilliseconds time: Int64) -> Bool {
        if let newest = self.snapshots.last {
            guard sequence > newest.sequence else { return false }
            self.snapshots.append(Snapshot(sequence: sequence, time: Swift.max(time, newest.time), position: position))
        } else {
            self.snapshots.append(Snapshot(sequence: sequence, time: time, position: position))
        }
        if self.snapshots.count > self.capacity { self.snapshots.removeFirst(self.snapshots.count - self.capacity) }
        return true
    }

    /// The position at `renderTime`: linear between the two snapshots around it (rounding towards zero), the
    /// oldest before the first, the newest after the last (holding still when nothing newer came). `nil` when
    /// nothing was received.
    public func position(atMilliseconds renderTime: Int64) -> ArenaPosition? {
        guard let first = self.snapshots.first, let last = self.snapshots.last else { return nil }
        if renderTime <= first.time { return first.position }
        if renderTime >= last.time { return last.position }
        for (earlier, later) in zip(self.snapshots, self.snapshots.dropFirst()) where renderTime < later.time {
            let span = later.time - earlier.time
            guard span > 0 else { return later.position }
            let elapsed = renderTime - earlier.time
            return ArenaPosition(
                x: Self.interpolate(earlier.position.x, later.position.x, elapsed, span),
                y: Self.interpolate(earlier.position.y, later.position.y, elapsed, span)
            )
        }
        return last.position
    }

    /// The position to draw at `now`: ``position(atMilliseconds:)`` at `now` minus the interpolation delay.
    public func position(now: Int64) -> ArenaPosition? {
        self.position(atMilliseconds: now &- Self.interpolationDelayMilliseconds)
    }

    private static func interpolate(_ from: Int32, _ to: Int32, _ elapsed: Int64, _ span: Int64) -> Int32 {
        let value = Int64(from) + (Int64(to) - Int64(from)) * elapsed / span
        return Int32(clamping: value)
    }
}
