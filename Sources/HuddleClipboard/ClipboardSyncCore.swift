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

    /// A received stamp this far ahead of the local wall clock is refused: 5 minutes.
    ///
    /// Taking a stamp moves this machine's clock up to it, and every copy made here afterwards is stamped after
    /// it; machines whose clocks are behind that refuse those copies. So the lead is how far one message from a
    /// paired peer can push every clock it reaches past real time, and about how long it can hold up sync between
    /// honest machines. Clocks kept by NTP agree within a second; five minutes leaves room for a clock set by hand.
    /// (The earlier bound, a day, let one message hold sync up for a day.)
    public static let maximumClockLead: UInt64 = 5 * 60 * 1000
    /// A received stamp's counter above this is refused (see ``HybridLogicalClock/maximumCounter``: no honest clock
    /// issues one).
    public static let maximumCounter: UInt32 = HybridLogicalClock.maximumCounter
    /// A taken item whose stamp is further than this ahead of the local wall clock is not passed on to other peers:
    /// 1 minute.
    ///
    /// Such a stamp comes from a badly set clock or a hostile peer. Passing it on would carry its effect to
    /// machines that never heard from its sender, and machines whose clocks are a little behind would refuse it
    /// and blame this one. The peers that are connected to its sender have it from there.
    public static let maximumRelayLead: UInt64 = 60 * 1000

    public private(set) var clock: HybridLogicalClock
    public private(set) var current: Current?
    /// Whether the current item was copied on this machine, rather than taken from a peer.
    public private(set) var currentIsLocal = false
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
        currentIsLocal = true
        return .share(stamp)
    }

    /// An item received from a peer.
    public mutating func remoteItem(stamp: ClipStamp, digest: String, now: UInt64) -> RemoteDecision {
        if stamp.counter > Self.maximumCounter {
            return .refused("its stamp counter \(stamp.counter) is out of range")
        }
        if stamp.time > now, stamp.time - now > Self.maximumClockLead {
            let minutes = (stamp.time - now) / 60_000
            let lead = minutes < 120 ? "\(minutes) minutes" : "\(minutes / 60) hours"
            return .refused("the sender's clock is \(lead) ahead of this machine's")
        }
        clock.witness(stamp, now: now)
        if let current {
            if stamp == current.stamp { return .duplicate }
            if stamp < current.stamp { return .stale(current: current.stamp) }
        }
        let sameContent = digest == (current?.digest ?? baseline)
        current = Current(stamp: stamp, digest: digest)
        currentIsLocal = false
        return .take(sameContent: sameContent)
    }
}

extension ClipboardSyncCore {
    /// Whether an item taken from a peer with `stamp` is passed on to the other peers: only when its stamp is at
    /// most ``maximumRelayLead`` ahead of the wall-clock reading `now`.
    public func passesOn(_ stamp: ClipStamp, now: UInt64) -> Bool {
        stamp.time <= now || stamp.time - now <= Self.maximumRelayLead
    }

    /// Whether the current item goes to a peer that connects at wall-clock reading `now`: a copy made here always
    /// does (its stamp may be ahead of the clock after taking an item that was), one taken from a peer as
    /// ``passesOn(_:now:)`` says.
    public func sendsCurrent(now: UInt64) -> Bool {
        guard let current else { return false }
        return currentIsLocal || passesOn(current.stamp, now: now)
    }

    /// A stamp for a deliberate share: fresh, but it does not change the current item.
    public mutating func stampForShare(now: UInt64) -> ClipStamp {
        clock.tick(now: now)
    }
}
