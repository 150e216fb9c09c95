/// The bounds a KDE Connect peer is held to (docs/kdeconnect.md, "Limits").
public struct KDEConnectLimits: Sendable, Hashable {
    /// An identity packet (UDP, or the line before TLS, or the one inside it).
    public var maximumIdentityBytes = 8 * 1024
    /// Any other packet line.
    public var maximumPacketBytes = 1024 * 1024
    /// A shared text or clipboard content, in UTF-8 bytes.
    public var maximumTextBytes = 1024 * 1024
    /// Devices remembered from announcements at once.
    public var maximumDevices = 64
    /// Links being set up at once (before their identity and TLS are done).
    public var maximumPendingLinks = 8
    /// Links other devices opened that are open at once, in all and per address: more are closed as soon as they
    /// are accepted.
    public var maximumLinks = 64
    public var maximumLinksPerAddress = 8
    /// How long a link may take to send its identity and finish TLS.
    public var handshakeTimeout: Duration = .seconds(10)
    /// How long a file being received may send nothing before it is given up.
    public var payloadIdleTimeout: Duration = .seconds(30)

    public init() {}
}
