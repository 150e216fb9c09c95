public import HuddleWire

/// Limits and timers of one peer connection, with the defaults of `docs/security.md` §4.9.
public struct PeerConnectionConfiguration: Hashable, Sendable {
    /// Sequence numbers of reliable messages stay below this; a RESUME at or above it is a protocol error.
    public static let sequenceLimit: UInt64 = 1 << 48

    public var handshake = PeerHandshakeConfiguration()
    /// TCP connect deadline.
    public var connectTimeout: Duration = .seconds(5)
    /// TLS handshake deadline.
    public var tlsHandshakeTimeout: Duration = .seconds(10)
    /// Largest reliable message; larger sends throw, larger arrivals close the connection.
    public var maximumMessageSize = 1024 * 1024 {
        didSet { precondition(maximumMessageSize <= Self.messageSizeCeiling, "maximumMessageSize above 64 MiB") }
    }
    /// Largest frame payload; messages are cut into frames of this size.
    public var maximumFramePayload = 64 * 1024
    /// A PING goes out after this long without hearing from the peer, or after a third of `disconnectTimeout`
    /// when that is shorter.
    public var pingAfter: Duration = .seconds(5)
    /// The peer is reported disconnected after this long without hearing from it.
    public var disconnectTimeout: Duration = .seconds(15)
    /// More PINGs than this within one second close the connection (`docs/security.md` §5 C5). An honest peer
    /// sends one per `pingAfter` of silence.
    public var maximumPingsPerSecond = 20
    /// More data frames than this that carry nothing (empty and not the end of a message) close the connection
    /// (`docs/security.md` §5 B7, a glitch limit). Huddle's own writer never sends one; zero-length messages are
    /// messages like any other and do not count.
    public var maximumEmptyFrames = 100
    /// Reliable messages kept until the peer acknowledges them, in bytes; a peer that lets more pile up is closed
    /// with a protocol error. An honest peer acknowledges each batch it reads.
    public var maximumUnacknowledgedBytes = 64 * 1024 * 1024
    /// How long the ACK of a batch of reads may wait for a frame going out to carry it (`docs/wire-protocol.md`
    /// §6.2). `nil` (the default): at once, at the end of each batch of reads. An application
    /// that answers on the connection's event loop (`docs/design.md`, "Running on the event loop") may set a few
    /// milliseconds, so that its replies carry the ACKs and the peer's next requests carry the peer's: one write
    /// each way per exchange. At most 1 s.
    public var acknowledgementDelay: Duration?
    /// After a goodbye with messages not yet acknowledged, how long to wait for the peer's last ACK.
    public var goodbyeAcknowledgementTimeout: Duration = .seconds(1)

    /// The most `maximumMessageSize` may be set to.
    public static let messageSizeCeiling = 64 * 1024 * 1024

    public init() {}
}
