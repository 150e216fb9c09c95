import HuddleWire
import NIOCore

/// One connection's datagram keys and where to send (`docs/security.md` §3.7).
struct DatagramLink {
    var sealer: DatagramSealer
    var opener: DatagramOpener
    /// The peer's UDP address; moved only by a packet that authenticates.
    var remote: SocketAddress
    /// From protocol version 3 on, what the sealed payloads carry (channels, fragments, pings); nil on a link of
    /// version 2, whose payloads are the application's bytes.
    var realtime: RealtimeLink?
}
