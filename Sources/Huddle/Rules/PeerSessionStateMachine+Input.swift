import HuddleTransport
import HuddleWire
import Logging
import NIOCore

extension PeerSessionStateMachine {
    /// Everything that can happen to the session's rules: from the directory, the connections, the API and the
    /// timers the rules asked for.
    enum Input {
        case found(PeerAdvert)
        case lost(PeerID)
        /// A connection came in (its socket is open).
        case accepted(ConnectionID)
        /// `connect` dials connection `id` for `peer`; its `connect` waits under the same number.
        /// A `connect` call starts dial `Int`; it gives up after `timeout` (``Timer/connectDeadline(_:peer:)``).
        case dialStarted(ConnectionID, peer: PeerID, timeout: Duration)
        /// The dialled socket opened.
        case opened(ConnectionID)
        case authenticated(ConnectionID, DeviceID)
        case prompted(ConnectionID, PeerHandshake.Prompt)
        case connected(ConnectionID, PeerHandshake.Outcome)
        case unacknowledged(ConnectionID, messages: [ByteBuffer], next: UInt64)
        /// The connection ended (or its dial failed).
        case closed(ConnectionID, PeerSessionError?)
        /// A reliable message whose write a connection refused (it had just failed), with that connection if the
        /// rules still know it.
        case unsent(ByteBuffer, to: PeerID, connection: ConnectionID?)
        case decide(PeerConnectionRequest.ID, accept: Bool)
        /// The task that called `connect` for dial `id` was cancelled.
        case cancelDial(ConnectionID)
        case cancelConnect(PeerID)
        case disconnect(PeerID)
        case disconnectAll
        /// The trust store changed (another process blocked or forgot a device).
        case trustChanged
        /// A `connect` the rules asked for (``Action/connect(_:timeout:reason:)``) ended: connected (`failure`
        /// nil) or not.
        case connectEnded(PeerID, reason: ConnectReason, failure: PeerSessionError?)
        case timer(Timer)
        case stop
    }

    /// Why the rules dial a peer.
    enum ConnectReason: Hashable, Sendable {
        /// It was found (``PeerSessionConfiguration/connectsToFoundPeers``).
        case found
        /// Its connection dropped; this is attempt `attempt` to make it again.
        case reconnect(attempt: Int)
    }

    /// What the rules asked to be told about later.
    enum Timer: Hashable, Sendable {
        case reconnect(PeerID, attempt: Int)
        /// The `connect` call that started dial `Int` to the peer has waited its whole timeout.
        case connectDeadline(ConnectionID, peer: PeerID)
        case redeliveryWindow(PeerID, generation: Int)
        /// The peer closed connection `Int` as a duplicate, keeping its own: by now its survivor should be here.
        case survivorDeadline(PeerID, connection: ConnectionID)
    }

    /// What the I/O layer does for the rules, in order.
    enum Action {
        case emit(PeerSessionEvent)
        case write(ConnectionID, PeerOutbound)
        /// Close a socket the rules never took (the session stopped, or its dial was given up).
        case closeChannel(ConnectionID)
        /// The `connect` waiting under this number returns, or throws the error.
        case finishConnect(ConnectionID, PeerSessionError?)
        /// Call `connect` in the background and report ``Input/connectEnded(_:reason:failure:)``.
        case connect(PeerID, timeout: Duration, reason: ConnectReason)
        case schedule(Timer, after: Duration)
        /// Sends to `peer` go through this connection from now on.
        case openFlow(PeerID, connection: ConnectionID)
        case closeFlow(PeerID, connection: ConnectionID)
        /// The connection's messages count as `peer`'s, against its delivery record.
        case openRoute(ConnectionID, PeerID, DeliveryCounter)
        case endTransfers(PeerID, PeerSessionError?)
        /// Set up the datagram link of a connection that just completed its handshake with `peer`'s `device`.
        case startDatagrams(ConnectionID, PeerID, DeviceID, PeerRole, PeerHandshake.Outcome)
        case forgetDatagrams(ConnectionID)
        /// Record a device in the trust store: pinned at `level`, or (nil) only seen again.
        case rememberTrust(DeviceID, level: TrustLevel?, displayName: String, version: UInt8)
        /// Keep where `device` was reached on `connection` for next time: the connection's remote address, with
        /// `listeningPort` in place of its port when the peer dialled (its own port is then not the one it listens
        /// on).
        case rememberAddress(DeviceID, connection: ConnectionID, listeningPort: Int?)
        case log(Logger.Level, Logger.Message, Logger.Metadata)
    }
}
