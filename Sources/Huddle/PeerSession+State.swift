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
