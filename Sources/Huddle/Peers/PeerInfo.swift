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
    /// What its advert carries beside its name (``PeerLobby``), as advertised last: a hint, like the name.
    public var lobby = PeerLobby()
    /// Set while the peer is found only at a direct address, not nearby (`--peer`, or where a paired device was
    /// last reached): that address, `host:port`. Only where it is dialled; its key says who it is.
    public var dialledAt: String?
}
