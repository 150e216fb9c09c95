/// The rules of clipboard sync, without I/O: which copy is the newest, what to share, what to take, what to ignore.
///
/// Every machine keeps the newest item it knows (its ``ClipStamp`` and a digest of its content). A local copy gets
/// a fresh stamp and is shared; a received item is taken only when its stamp is newer than the current one, and is
/// then passed on to the other peers. Because a stamp is taken at most once per machine and only ever upwards, items
/// relayed around a mesh of any shape stop after one round: no echo loops, whatever the number of machines.
/// Copies made at the same moment on two machines are ordered by stamp, so every machine settles on the same one.
///
/// Pure and deterministic: wall-clock readings are passed in (milliseconds since 1970).
public struct ClipboardSyncCore: Sendable {
    /// The newest item known.
    public struct Current: Hashable, Sendable {
        public var stamp: ClipStamp
        /// A digest of the synced content (see ``ClipboardItemFilter/digest(of:)``).
        public var digest: String

        public init(stamp: ClipStamp, digest: String) {
            self.stamp = stamp
            self.digest = digest
        }
    }

    /// What to do with a local clipboard change.
    public enum LocalDecision: Hashable, Sendable {
        /// A new item: share it under this stamp.
        case share(ClipStamp)
        /// The content is what the clipboard already held (our own write coming back, a clipboard manager taking
        /// over the selection, the content present at start): nothing to share.
        case unchanged
    }

    /// What to do with an item received from a peer.
    public enum RemoteDecision: Hashable, Sendable {
        /// The newest item: put it on the clipboard (unless `sameContent`) and pass it on to the other peers.
        case take(sameContent: Bool)
        /// Older than the current item (which the sender has or will get): ignored.
        case stale(current: ClipStamp)
        /// Already taken (it came round another way): ignored.
        case duplicate
        /// Refused, with the reason to show.
        case refused(String)
    }

    /// A received stamp this far ahead of the local wall clock is refused: 24 hours.
    public static let maximumClockLead: UInt64 = 24 * 3600 * 1000
    /// A received stamp's counter above this is refused (local counters only reach it with millions of copies in
    /// one millisecond).
    public static let maximumCounter: UInt32 = 1 << 24

    public private(set) var clock: HybridLogicalClock
    public private(set) var current: Current?
    /// The content on the clipboard when sync started: never shared as new by itself.
    public private(set) var baseline: String?

    public init(origin: String) {
        self.clock = HybridLogicalClock(origin: origin)
    }

    /// Remembers what the clipboard held at start, so it is not announced as a new copy.
    public mutating func start(withClipboard digest: String?) {
        baseline = digest
    }

    /// A change of the local clipboard to content with `digest`.
    public mutating func localChange(digest: String, now: UInt64) -> LocalDecision {
        if digest == (current?.digest ?? baseline) { return .unchanged }
        let stamp = clock.tick(now: now)
        current = Current(stamp: stamp, digest: digest)
        return .share(stamp)
    }

    /// An item received from a peer.
    public mutating func remoteItem(stamp: ClipStamp, digest: String, now: UInt64) -> RemoteDecision {
        if stamp.counter > Self.maximumCounter {
            return .refused("its stamp counter \(stamp.counter) is out of range")
        }
        if stamp.time > now, stamp.time - now > Self.maximumClockLead {
            let hours = (stamp.time - now) / 3_600_000
            return .refused("the sender's clock is \(hours) hours ahead of this machine's")
        }
        clock.witness(stamp, now: now)
        if let current {
            if stamp == current.stamp { return .duplicate }
            if stamp < current.stamp { return .stale(current: current.stamp) }
        }
        let sameContent = digest == (current?.digest ?? baseline)
        current = Current(stamp: stamp, digest: digest)
        return .take(sameContent: sameContent)
    }
}

extension ClipboardSyncCore {
    /// A stamp for a deliberate share: fresh, but it does not change the current item.
    public mutating func stampForShare(now: UInt64) -> ClipStamp {
        clock.tick(now: now)
    }
}
