import HuddleWire
import NIOCore

/// One connection's datagram keys and where to send (`docs/security.md` §3.7).
struct DatagramLink {
    var sealer: DatagramSealer
    var opener: DatagramOpener
    /// The peer's UDP address; moved only by a packet that authenticates.
    var remote: SocketAddress
}
