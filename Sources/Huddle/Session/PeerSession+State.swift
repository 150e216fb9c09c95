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
        case datagram([UInt8], SocketAddress)
        /// A reliable message that could not go straight to the events, with its sequence number.
        case message(ConnectionID, ByteBuffer, sequence: UInt64, ReceiveCharge)
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
    }
}
