import HuddleTransport
import HuddleWire
import NIOConcurrencyHelpers
import NIOCore

extension PeerSession {
    /// Everything that reaches the session from its connections and its directory, in one ordered stream.
    enum Inbox: Sendable {
        case accepted(Int, any Channel, MessageRoute)
        case dialed(Int, Result<any Channel, PeerSessionError>)
        case connection(Int, PeerConnectionEvent)
        case directory(PeerDirectoryEvent)
        case datagram([UInt8], SocketAddress)
        /// A reliable message that could not go straight to the events, with its sequence number.
        case message(Int, ByteBuffer, sequence: UInt64)
        /// A reliable message whose write the connection refused (it had just failed).
        case unsent(ByteBuffer, to: PeerID, channel: ObjectIdentifier)
    }

    struct PeerRecord {
        var info: PeerInfo
        var advert: PeerAdvert?
        var connection: Int?
        /// Which of the peer's reliable messages were handed on, across connections.
        var delivery = DeliveryCounter()
        /// When its last connection ended: within the redelivery window the peer may still send messages again,
        /// and only this record's ``delivery`` knows which of them arrived, so the record is not forgotten.
        var disconnectedAt: ContinuousClock.Instant?
        /// Messages a lost connection left unacknowledged, waiting for the next connection or for the
        /// redelivery window to pass.
        var outbox: Outbox?
    }

    struct Outbox {
        var messages: [ByteBuffer]
        /// The sequence number of the first of `messages`.
        var first: UInt64
        /// Tells this outbox's expiry from that of a later one.
        var generation: Int
    }

    struct ConnectionSlot {
        let id: Int
        let role: PeerRole
        var channel: (any Channel)?
        var peer: PeerID?
        var remote: DeviceID?
        var connected = false
        var pairing = false
        var request: PeerConnectionRequest.ID?
        var waiter: CheckedContinuation<Void, any Error>?
        var acceptedOnFirstUse = false
        var datagram: DatagramLink?
        /// Set once this side said goodbye; a new `connect` does not wait for it to finish closing.
        var closing = false
        /// How this connection's messages reach ``PeerSession/events``.
        var route = MessageRoute()
        /// The peer a `connect` dialled this connection for.
        var intended: PeerID?
        /// What the connection left unacknowledged when it closed (reported just before `closed`).
        var unacknowledged: (messages: [ByteBuffer], next: UInt64)?
        /// Messages whose writes the connection refused after it failed; they follow `unacknowledged`.
        var unsent: [ByteBuffer] = []
    }
}

/// How one connection's messages reach the events: through the session's inbox until the session has tied the
/// connection to its peer, then straight from the event loop — but only once every message already in the inbox
/// has been handed on, so the order never changes. It also numbers the messages (from the peer's RESUME on), and
/// once tied to the peer drops those the peer's ``DeliveryCounter`` says were handed on already.
final class MessageRoute: Sendable {
    private struct State {
        var peer: PeerID?
        var delivery: DeliveryCounter?
        var inInbox = 0
        var next: UInt64 = 0
    }

    enum Arrival {
        /// Hand it to the events now.
        case direct(PeerID)
        /// The peer sent it again after a lost connection and it was handed on then: drop it.
        case duplicate
        /// Send it through the inbox with its sequence number.
        case inbox(UInt64)
    }

    private let state = NIOLockedValueBox(State())

    /// The peer's next message has sequence number `sequence`.
    func resume(at sequence: UInt64) { state.withLockedValue { $0.next = sequence } }

    /// A whole message arrived (called in order, on the event loop).
    func arrived() -> Arrival {
        state.withLockedValue { state in
            let sequence = state.next
            state.next &+= 1
            if let peer = state.peer, let delivery = state.delivery, state.inInbox == 0 {
                return delivery.admit(sequence) ? .direct(peer) : .duplicate
            }
            state.inInbox += 1
            return .inbox(sequence)
        }
    }

    /// A message that went through the inbox was handed on.
    func leftInbox() { state.withLockedValue { $0.inInbox -= 1 } }

    /// From now on messages may go directly to `peer`.
    func open(to peer: PeerID, delivery: DeliveryCounter) {
        state.withLockedValue { state in
            state.peer = peer
            state.delivery = delivery
        }
    }
}

/// The sequence number after the last of a peer's reliable messages handed on: everything below it arrived, so a
/// message sent again after a lost connection is dropped (shared by the peer's connections, one after another).
final class DeliveryCounter: Sendable {
    private let next = NIOLockedValueBox<UInt64>(0)

    /// Whether the message numbered `sequence` is new; if so it counts as handed on.
    func admit(_ sequence: UInt64) -> Bool {
        next.withLockedValue { next in
            guard sequence >= next else { return false }
            next = sequence &+ 1
            return true
        }
    }
}
