public import HuddleWire
public import NIOCore

/// How sessions find each other: DNS-SD over multicast DNS on a network (``MDNSPeerDirectory``), or a table in
/// memory for several sessions in one process (``InMemoryPeerDirectory``).
public protocol PeerDirectory: Sendable {
    /// Makes `advert` findable until the returned registration is withdrawn.
    func advertise(_ advert: PeerAdvert) async throws -> any PeerDirectoryRegistration
    /// Sightings of peers of `serviceType`, as they come and go.
    func browse(serviceType: String) -> AsyncStream<PeerDirectoryEvent>
}

/// An advertisement that can be taken back.
public protocol PeerDirectoryRegistration: Sendable {
    func withdraw() async
    /// Advertises `advert` in place of what was advertised, without withdrawing it first: over mDNS, the TXT
    /// record is announced again (RFC 6762 §8.4). Only its lobby may differ.
    func update(_ advert: PeerAdvert) async throws
    /// The name others find the advertisement under, once it is theirs to find: over mDNS, after probing has
    /// won the name (RFC 6762 §8.1, about a second), renamed if another host held it (§9). Nil once withdrawn.
    func advertisedName() async -> String?
}

/// What a session advertises: the TXT record carries the protocol version, the device ID hint, the instance token
/// and the mode, so a browser knows who it will reach before it connects.
public struct PeerAdvert: Hashable, Sendable {
    public var serviceType: String
    public var peer: PeerID
    public var displayName: String
    public var deviceID: DeviceID
    public var mode: PeerSessionMode
    public var port: Int
    /// Addresses to reach it at; filled in by the directory when it knows them.
    public var addresses: [SocketAddress]
    /// The highest protocol version the peer speaks.
    public var version: UInt8 = 1
    /// What the session advertises beside its name (``PeerLobby``): in the TXT record over mDNS.
    public var lobby = PeerLobby()
    /// Found only at a direct address (``PeerSessionConfiguration/peerAddresses``), not nearby: the peer may not
    /// be able to find this side, so this side dials it whatever ``DialOrder`` says.
    public var isDirect = false

    public init(
        serviceType: String,
        peer: PeerID,
        displayName: String,
        deviceID: DeviceID,
        mode: PeerSessionMode,
        port: Int,
        addresses: [SocketAddress] = []
    ) {
        self.serviceType = serviceType
        self.peer = peer
        self.displayName = displayName
        self.deviceID = deviceID
        self.mode = mode
        self.port = port
        self.addresses = addresses
    }
}

/// A change seen while browsing.
public enum PeerDirectoryEvent: Hashable, Sendable {
    /// Found, or changed (a new address, a new name).
    case found(PeerAdvert)
    case lost(PeerID)
}
