public import HuddleWire

/// What the session knows about a peer.
public struct PeerInfo: Hashable, Sendable {
    public var id: PeerID
    /// The advertised or announced name, cleaned for display (``DisplayText``).
    public var displayName: String
    /// The device's key hash: a hint from discovery until TLS proves it.
    public var deviceID: DeviceID?
    /// Whether TLS proved `deviceID`.
    public var deviceIDVerified = false
    public var state: PeerState
}
