import Huddle

/// When a line typed into the chat may be queued for a peer, must wait, or is dropped: the rule of the chat's
/// per-peer queues, without clock or I/O (``ChatOutbox`` carries it out).
///
/// Each peer has an ordered queue of at most ``maximumWaiting`` lines. A full queue to a peer that is still
/// taking lines holds up the typing (or the paste) until there is room, so a slow link gets every line. A peer
/// is *not reading* when its queue is full and the other peers, together, have taken a full queue's worth of
/// lines since it last took one: it has fallen behind by more than its queue while they kept up. Lines to it
/// are then dropped until it takes one again. The rule compares peers with each other, never with the clock,
/// so a loaded machine, where everyone is slow, drops nothing; a peer that stops reading in a chat with no one
/// else keeps the typing waiting until the session's liveness check ends its link.
struct ChatQueueRule {
    enum Admission: Equatable {
        /// Queue the line.
        case queued
        /// The queue is full and the peer is still reading: try again after the next line is taken.
        case wait
        /// The peer is not reading: drop the line.
        case dropped
    }

    let maximumWaiting: Int

    /// Lines queued for each peer and not yet taken.
    private(set) var waiting: [PeerID: Int] = [:]
    /// Lines taken by all peers together, ever.
    private var takenByAll = 0
    /// `takenByAll` when each peer last took a line (or its queue went from empty to not empty).
    private var takenAtLastProgress: [PeerID: Int] = [:]

    init(maximumWaiting: Int = 4096) {
        self.maximumWaiting = maximumWaiting
    }

    /// Decides about one line for `peer`; `.queued` counts it as waiting.
    mutating func admit(to peer: PeerID) -> Admission {
        let queued = waiting[peer, default: 0]
        guard queued >= maximumWaiting else {
            if queued == 0 { takenAtLastProgress[peer] = takenByAll }
            waiting[peer] = queued + 1
            return .queued
        }
        let othersTook = takenByAll - takenAtLastProgress[peer, default: takenByAll]
        return othersTook >= maximumWaiting ? .dropped : .wait
    }

    /// `peer` took one line off its queue.
    mutating func took(from peer: PeerID) {
        guard let queued = waiting[peer], queued > 0 else { return }
        waiting[peer] = queued - 1
        takenByAll += 1
        takenAtLastProgress[peer] = takenByAll
    }

    /// `peer` left: its queue is forgotten.
    mutating func remove(_ peer: PeerID) {
        waiting.removeValue(forKey: peer)
        takenAtLastProgress.removeValue(forKey: peer)
    }
}
