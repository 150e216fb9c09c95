/// What one peer's link measured (`docs/realtime.md`, "Link statistics"): the round trip as TCP smooths it
/// (RFC 6298 §2) from the session's PINGs (``PeerSessionConfiguration/linkPingInterval``), loss each way, and
/// the datagrams and bytes each way. Loss and the round trip need protocol version 3 on both sides; before the
/// first PONG they are nil.
public struct PeerLinkStatistics: Hashable, Sendable {
    /// Whether unreliable messages get through on UDP.
    public enum DatagramPath: String, Hashable, Sendable {
        /// A PONG came back: datagrams get through both ways.
        case udp
        /// PINGs went out and no PONG has come back yet: UDP may be blocked on the way. Messages still go on UDP.
        case unconfirmed
        /// PINGs in a row got no PONG (``DatagramPathChoice``): unreliable messages go on the TLS stream, in
        /// order and delayed by any loss, until a PONG comes back.
        case tls
        /// The link has no datagrams (the peer told no UDP port) or is of version 2, which has no PINGs.
        case none
    }

    /// The protocol version the connection agreed on.
    public var protocolVersion: UInt8
    public var datagramPath: DatagramPath
    /// SRTT and RTTVAR.
    public var smoothedRoundTrip: Duration?
    public var roundTripVariation: Duration?
    /// The share of this side's datagrams the peer did not get, and of the peer's this side did not get.
    public var lossOut: Double?
    public var lossBack: Double?
    public var datagramsSent: UInt64 = 0
    public var datagramsReceived: UInt64 = 0
    /// Payload bytes.
    public var bytesSent: UInt64 = 0
    public var bytesReceived: UInt64 = 0
    /// Unreliable messages sent on the TLS stream while UDP did not get through.
    public var messagesOnStream: UInt64 = 0
    /// Bytes written to the TLS connection and not yet taken by its socket.
    public var queuedBytes: Int = 0

    public init(protocolVersion: UInt8, datagramPath: DatagramPath) {
        (self.protocolVersion, self.datagramPath) = (protocolVersion, datagramPath)
    }
}
