import Huddle

/// When a line typed into the chat may be queued for a peer, must wait, or is dropped: the rule of the chat's
/// per-peer queues, with the clock passed in and no I/O (``ChatOutbox`` carries it out).
///
/// Each peer has an ordered queue of at most ``maximumWaiting`` lines. A full queue to a peer that is still
/// taking lines holds up the typing (or the paste) until there is room, so a slow link gets every line, however
/// slow. A peer is *not reading* when three things hold at once: its queue is full, another peer has taken every
/// line it was given (so this one is a whole queue behind someone who kept up), and it has taken no line for
/// ``stallLimit``. Lines to it are then dropped until it takes one again.
///
/// Counting alone cannot tell a stopped peer from a slow one: a full queue holds up the paste, so the others can
/// never get more than one queue ahead of either, and once they have taken everything nothing moves in both
/// cases. The time without a take tells them apart; requiring another peer that kept up keeps a machine where
/// every link is slow (or a chat with one peer, whose stopped link the session's liveness check ends) from
/// dropping anything.
struct ChatQueueRule {
    enum Admission: Equatable {
        /// Queue the line.
        case queued
        /// The queue is full and the peer may still be reading: try again after the next line is taken, or at
        /// `recheckAt` when that comes first (`nil`: only a take can change the answer).
        case wait(recheckAt: ContinuousClock.Instant?)
        /// The peer is not reading: drop the line.
        case dropped
    }

    let maximumWaiting: Int
    /// How long a peer with a full queue may take nothing, while another keeps up, before it counts as not reading.
    let stallLimit: Duration

    /// Lines queued for each peer and not yet taken.
    private(set) var waiting: [PeerID: Int] = [:]
    /// When each peer last took a line (or its queue went from empty to not empty).
    private var lastProgress: [PeerID: ContinuousClock.Instant] = [:]
    /// Peers found not reading, whose lines are dropped until they take one.
    private var notReading: Set<PeerID> = []

    init(maximumWaiting: Int = 4096, stallLimit: Duration = .seconds(2)) {
        self.maximumWaiting = maximumWaiting
        self.stallLimit = stallLimit
    }

    /// Decides about one line for `peer` at `now`; `.queued` counts it as waiting.
    mutating func admit(to peer: PeerID, now: ContinuousClock.Instant) -> Admission {
        let queued = waiting[peer, default: 0]
        guard queued >= maximumWaiting else {
            if queued == 0 { lastProgress[peer] = now }
            waiting[peer] = queued + 1
            return .queued
        }
        if notReading.contains(peer) { return .dropped }
        let anotherKeptUp = waiting.contains { $0.key != peer && $0.value == 0 }
        guard anotherKeptUp else { return .wait(recheckAt: nil) }
        let stalledAt = lastProgress[peer, default: now] + stallLimit
        guard now >= stalledAt else { return .wait(recheckAt: stalledAt) }
        notReading.insert(peer)
        return .dropped
    }

    /// `peer` took one line off its queue at `now`.
    mutating func took(from peer: PeerID, now: ContinuousClock.Instant) {
        guard let queued = waiting[peer], queued > 0 else { return }
        waiting[peer] = queued - 1
        lastProgress[peer] = now
        notReading.remove(peer)
    }

    /// `peer` left: its queue is forgotten.
    mutating func remove(_ peer: PeerID) {
        waiting.removeValue(forKey: peer)
        lastProgress.removeValue(forKey: peer)
        notReading.remove(peer)
    }
}
