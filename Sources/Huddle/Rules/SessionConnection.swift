import HuddleTransport
import HuddleWire
import NIOCore

/// One connection as the session's rules see it: who it is with, how far it got, and what it owes.
///
/// The channel itself lives in the I/O layer (``PeerSession``); the rules name connections by number.
/// See `docs/design.md`, "The session state machine".
struct SessionConnection {
    /// How far a connection got. It moves forward only: dialling → handshaking → deciding → connected → closing
    /// (from any phase).
    enum Phase: Hashable, Sendable {
        /// Dialled; the socket is not open yet, so nothing can be written to it.
        case dialling
        /// TLS and the HELLO exchange are under way.
        case handshaking
        /// The handshake asked for a decision: the user's (a request is out), or this side's policy, which has
        /// accepted already. `firstUse`: accepted by ``PeerSessionConfiguration/trustsOnFirstUse``.
        case deciding(firstUse: Bool)
        /// Both sides accepted; messages flow.
        case connected
        /// This side closed it (goodbye, refusal, cancel) and waits for it to end.
        case closing(wasConnected: Bool)
    }

    let id: ConnectionID
    let role: PeerRole
    var phase: Phase
    /// The peer its HELLO named, while this connection may speak for it.
    var peer: PeerID?
    /// The peer this connection spoke for until the duplicate tie-break replaced it with another connection to the
    /// same peer: what it leaves unacknowledged goes on the survivor.
    var replacedFor: PeerID?
    /// Both sides accepted this connection while the one it replaced was still closing: it speaks for the peer once
    /// that one has ended, so that its RESUME starts above every number the replaced one used.
    var heldOutcome: PeerHandshake.Outcome?
    /// The device TLS proved.
    var remote: DeviceID?
    /// The peer a `connect` dialled this connection for.
    var intended: PeerID?
    /// The `connect` waiting for this connection (its dial's number).
    var waiter: ConnectionID?
    /// What the connection left unacknowledged when it closed (reported just before it closed).
    var unacknowledged: (messages: [ByteBuffer], next: UInt64)?
    /// Messages whose writes the connection refused after it failed; they follow `unacknowledged`.
    var unsent: [ByteBuffer] = []

    init(id: ConnectionID, role: PeerRole, phase: Phase) {
        self.id = id
        self.role = role
        self.phase = phase
    }

    /// Whether both sides accepted it at some point (it may be closing since).
    var hasConnected: Bool { phase == .connected || phase == .closing(wasConnected: true) }

    var isClosing: Bool {
        if case .closing = phase { return true }
        return false
    }

    /// Whether the user's policy accepted it at first contact, without a code comparison.
    var acceptedOnFirstUse: Bool { phase == .deciding(firstUse: true) }

    mutating func close() {
        phase = .closing(wasConnected: hasConnected)
    }
}
