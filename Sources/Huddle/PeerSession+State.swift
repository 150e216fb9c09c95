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
    }

    struct PeerRecord {
        var info: PeerInfo
        var advert: PeerAdvert?
        var connection: Int?
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
        /// Set once the pairing prompt was shown; an unfinished run counts against the pairing budget.
        var countsAsPairingRun = false
        var acceptedOnFirstUse = false
        var datagram: DatagramLink?
        /// Set once this side said goodbye; a new `connect` does not wait for it to finish closing.
        var closing = false
        /// How this connection's messages reach ``PeerSession/events``.
        var route = MessageRoute()
        /// The peer a `connect` dialled this connection for.
        var intended: PeerID?
    }
}

/// How one connection's messages reach the events: through the session's inbox until the session has tied the
/// connection to its peer, then straight from the event loop — but only once every message already in the inbox
/// has been handed on, so the order never changes.
final class MessageRoute: Sendable {
    private let state = NIOLockedValueBox<(peer: PeerID?, inInbox: Int)>((nil, 0))

    /// The peer to deliver to directly, or `nil` when the message must go through the inbox (counted).
    func directPeer() -> PeerID? {
        state.withLockedValue { state in
            if let peer = state.peer, state.inInbox == 0 { return peer }
            state.inInbox += 1
            return nil
        }
    }

    /// A message that went through the inbox was handed on.
    func leftInbox() { state.withLockedValue { $0.inInbox -= 1 } }

    /// From now on messages may go directly to `peer`.
    func open(to peer: PeerID) { state.withLockedValue { $0.peer = peer } }
}
