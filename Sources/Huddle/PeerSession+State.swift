import HuddleTransport
import HuddleWire
import NIOCore

extension PeerSession {
    /// Everything that reaches the session from its connections and its directory, in one ordered stream.
    enum Inbox: Sendable {
        case accepted(Int, any Channel)
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
        /// The peer a `connect` dialled this connection for.
        var intended: PeerID?
    }
}
