import HuddleTransport
import HuddleWire
import NIOCore

extension PeerSession {
    /// Everything that reaches the session from its connections and its directory, in one ordered stream.
    enum Inbox: Sendable {
        /// A connection a peer made, with its source address read when it was accepted.
        case accepted(ConnectionID, any Channel, remote: SocketAddress?, MessageRoute)
        case dialed(ConnectionID, Result<any Channel, PeerSessionError>)
        case connection(ConnectionID, PeerConnectionEvent)
        case directory(PeerDirectoryEvent)
        /// A datagram, with when the socket read it: the real-time rules reckon in arrivals, so a session slow to
        /// get to its inbox does not time out a message whose fragments came together.
        case datagram([UInt8], SocketAddress, at: ContinuousClock.Instant)
        /// A reliable message that could not go straight to the events, with how it came (nil: a malformed
        /// header) and its sequence number.
        case message(ConnectionID, ByteBuffer, ReliableMessageHeader?, sequence: UInt64, ReceiveCharge)
        /// A message of the resource stream (transfers).
        case resource(ConnectionID, ByteBuffer, ReceiveCharge)
        /// A reliable message whose write the connection refused (it had just failed).
        case unsent(ByteBuffer, to: PeerID, channel: ObjectIdentifier)
    }

    /// The I/O side of one connection; its rules live in ``PeerSessionStateMachine``.
    struct ConnectionIO {
        /// Nil while a dial is still opening its socket.
        var channel: (any Channel)?
        /// The peer's address: the one dialled, or the source of an accepted connection. Kept here because a
        /// closed channel no longer reports it, and a peer may close right after the handshake (a pairing link's
        /// issuer does).
        let remote: SocketAddress?
        /// How this connection's messages reach ``PeerSession/events``.
        let route: MessageRoute
        /// The protocol version the handshake agreed on; 2 until it is done.
        var version: UInt8 = 2
    }
}
