import HuddleWire
import NIOCore

/// One peer as the session's rules see it: what it is, where it was found, which connection speaks for it, and
/// what it is owed. See `docs/design.md`, "The session state machine".
struct SessionPeer {
    /// Messages a lost connection left unacknowledged, waiting for the next connection or for the redelivery
    /// window to pass.
    struct Outbox {
        var messages: [ByteBuffer]
        /// The sequence number of the first of `messages`.
        var first: UInt64
        /// Tells this outbox's expiry from that of a later one.
        var generation: Int
    }

    var info: PeerInfo
    var advert: PeerAdvert?
    /// The connection that speaks for the peer.
    var connection: ConnectionID?
    /// The connection whose channel `send` writes to. While the duplicate tie-break replaces a connection, it stays
    /// the replaced one until the survivor is connected: a write it refuses joins what goes again in the survivor's
    /// RESUME, so a `send` to a connected peer never finds it not connected (`docs/design.md`, "The duplicate
    /// tie-break").
    var flowConnection: ConnectionID?
    /// Which of the peer's reliable messages were handed on, across connections.
    var delivery = DeliveryCounter()
    /// When its last connection ended: within the redelivery window the peer may still send messages again,
    /// and only this record's ``delivery`` knows which of them arrived, so the record is not forgotten.
    var disconnectedAt: ContinuousClock.Instant?
    var outbox: Outbox?
    /// The protocol version of its latest connection: how the messages kept for it are framed (from version 3 on,
    /// each starts with a ``ReliableMessageHeader``).
    var version: UInt8 = 2
}
