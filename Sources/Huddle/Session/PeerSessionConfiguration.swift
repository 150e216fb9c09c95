public import Foundation
public import HuddleDiscovery
public import HuddleTransport
public import HuddleWideArea
public import HuddleWire
public import Logging
public import NIOCore

/// How a ``PeerSession`` behaves; every limit has a documented default (`docs/security.md` §4.9).
public struct PeerSessionConfiguration: Sendable {
    /// Where the device key and the trust store live. Default: `$HUDDLE_HOME`, else `$XDG_DATA_HOME/huddle`, else
    /// `$HOME/.local/share/huddle`.
    public var dataDirectory: URL = Self.defaultDataDirectory()
    /// Connection limits and timers (message size, heartbeat, disconnect timeout, handshake deadlines).
    public var connection = PeerConnectionConfiguration()
    /// The address to accept connections on; `nil` for every address (IPv6 and IPv4).
    public var listenHost: String?
    /// The port to accept connections on; 0 picks a free one.
    public var listenPort = 0
    /// What the session advertises beside its name at the start (``PeerLobby``); ``PeerSession/setLobby(_:)``
    /// changes it while it runs.
    public var lobby = PeerLobby()
    /// Where to look for peers that discovery cannot find (another subnet, a network that drops multicast): the
    /// session introduces itself at each address while it browses, and the peer that answers is found as if it
    /// were nearby (`docs/design.md`, "Peers beyond the link"). An address is only where to dial: the peer's key
    /// decides who it is. Failures are reported as ``PeerSessionEvent/addressUnreachable(_:_:)``.
    public var peerAddresses: [PeerAddress] = []
    /// A wide-area DNS-SD domain to register in (with a TSIG key) and browse, beside multicast DNS
    /// (`docs/design.md`, "Wide-area DNS-SD"). Instances found there are dialled only when the device their
    /// record names answers at their address.
    public var wideArea: WideAreaConfiguration?
    /// Look for paired devices that are not found nearby at the addresses they were last reached at (kept in the
    /// trust store), backing off to every 5 minutes. Only the pinned device is taken as an answer there.
    public var dialsRememberedAddresses = true
    /// When the port in ``listenPort`` is taken, listen on a free one instead of failing (for a default port that
    /// a second session on the same host cannot have).
    public var listenPortFallsBack = false
    /// Connect pinned peers that ask, without a prompt.
    public var acceptsPinnedPeersAutomatically = true
    /// Accept first contacts without comparing the code, pinning the peer as trust-on-first-use. For headless,
    /// scripted use only: it gives up the protection against a man in the middle at first contact. A peer whose
    /// name looks like a paired device's (``PeerConnectionRequest/namesakes``) is asked about all the same.
    public var trustsOnFirstUse = false
    /// Most accepted connections still before their first decision (TCP, TLS, HELLO, pairing exchange).
    public var maximumPendingConnections = 16
    /// The same, from one address.
    public var maximumPendingConnectionsPerAddress = 4
    /// Received bytes the slowest subscriber of ``PeerSession/events`` may fall behind by before the session stops reading
    /// from its connections (`docs/security.md` §4.9: connection receive budget).
    public var maximumUndeliveredBytes = 32 * 1024 * 1024
    /// Connect to every peer found, from one side of each pair only (``DialOrder``), once per instance found; a
    /// failed attempt is reported as ``PeerSessionEvent/peerError(_:_:)`` with
    /// ``PeerSessionError/autoConnectFailed(_:)``. Off by default: an app may rather connect on the user's choice.
    public var connectsToFoundPeers = false
    /// Connect pinned peers again, without a prompt, after their connection drops (not after a goodbye).
    public var reconnectsDroppedPeers = true
    /// How long reliable messages a lost connection left unacknowledged wait for the peer to connect again; they
    /// are sent again first on the next connection (the peer drops what it already has), or reported as
    /// ``PeerSessionEvent/undelivered(_:to:)`` when the window passes.
    public var redeliveryWindow: Duration = .seconds(60)
    /// Interfaces, address families and host name of the multicast DNS stack the session starts for itself when
    /// it is given no directory (that stack is the session's own, shut down by ``PeerSession/stop()``; a directory
    /// passed in stays its caller's).
    public var discovery = DiscoveryConfiguration()
    /// Where the session reports what it cannot hand to the caller as an event: a trust-store write that failed, a
    /// message dropped because it did not decode. Default: nowhere; pass the application's logger.
    public var logger = Logger(label: "huddle.session", factory: { _ in SwiftLogNoOpLogHandler() })
    /// Chunk size and deadlines of file transfers.
    public var transfers = TransferConfiguration()
    /// Most connected peers at once; further requests are refused as busy.
    public var maximumPeers = 16
    /// Most peers the session keeps track of (`docs/security.md` §5 C8). When the table is full, a peer that is
    /// gone (not advertised, not connected) makes room; otherwise adverts of further unpinned devices are ignored
    /// until room frees up. Pinned devices are always let in, so a flood of fake adverts cannot hide them.
    public var maximumKnownPeers = 256
    /// How many pairing runs may start, and when (``PairingBudget``): one pairing at a time, one new run per
    /// source every 2 s, and a 60 s pause after 5 runs end unpaired within 10 minutes.
    public var pairingBudget = PairingBudget.Configuration()
    /// The event loops the session's sockets run on. Default: NIO's shared group, one loop per core. Give one
    /// loop (an `EventLoop` is a group of one) to run every connection on it, and read ``PeerSession/events`` in a
    /// task preferring ``EventLoopTaskExecutor`` on that loop: messages are then handled and answered on the
    /// connection's thread, without a hand-off each way.
    public var eventLoopGroup: any EventLoopGroup = PeerChannels.defaultEventLoopGroup
    /// How often the session sends a PING on each link of protocol version 3 for its round trip and loss
    /// (``PeerSession/linkStatistics(for:)``): a 13-byte payload each second by default; nil sends none.
    public var linkPingInterval: Duration? = .seconds(1)
    /// Forged datagrams a link takes before it stops receiving (``DatagramOpener/defaultAuthenticationFailureLimit``);
    /// tests lower it.
    var datagramAuthenticationFailureLimit = DatagramOpener.defaultAuthenticationFailureLimit
    /// What carries the connections; tests swap TCP for memory.
    @_spi(Testing) public var transport: any SessionTransport = TCPSessionTransport()
    /// Runs on a file's writer before each of its writes; tests hold it to stand in for a stalled disk.
    var beforeTransferWrite: (@Sendable () -> Void)?
    /// The time the rules read and the timers wait on (the trust store's checks for changes too); tests move it by
    /// hand.
    @_spi(Testing) public var clock: any SessionClock = SystemSessionClock()
    /// Runs on a connection's event loop each time a receive budget makes it stop reading, with its channel; tests
    /// wait for it instead of watching the buffered bytes.
    var receivePaused: (@Sendable (any Channel) -> Void)?

    public init() {}

    /// Checks the settings that depend on each other; a session does so when it is made.
    ///
    /// - Throws: ``PeerSessionError/invalidConfiguration(_:)`` naming the first setting that does not fit: a
    ///   CHUNK (``TransferConfiguration/chunkSize`` plus its 25-byte header) must fit one message, the write size
    ///   must fit the transfer buffer, and sizes, intervals and timeouts must be positive.
    public func validate() throws {
        let transfers = self.transfers
        let message = connection.maximumMessageSize
        func require(_ holds: Bool, _ reason: @autoclosure () -> String) throws {
            guard holds else { throw PeerSessionError.invalidConfiguration(reason()) }
        }
        try require(transfers.chunkSize > 0, "transfers.chunkSize must be positive")
        try require(
            transfers.chunkSize + TransferMessage.chunkHeaderSize <= message,
            "transfers.chunkSize (\(transfers.chunkSize)) and its \(TransferMessage.chunkHeaderSize)-byte header must fit "
                + "connection.maximumMessageSize (\(message))"
        )
        try require(connection.maximumFramePayload > 0, "connection.maximumFramePayload must be positive")
        try require(transfers.progressInterval > 0, "transfers.progressInterval must be positive")
        try require(transfers.sendWindow > 0, "transfers.sendWindow must be positive")
        try require(
            transfers.writeSize > 0 && transfers.writeSize <= transfers.maximumBufferedBytes,
            "transfers.writeSize (\(transfers.writeSize)) must be positive and at most transfers.maximumBufferedBytes "
                + "(\(transfers.maximumBufferedBytes))"
        )
        try require(disconnectTimeout > .zero, "disconnectTimeout must be positive")
        try require(connection.pingAfter > .zero, "connection.pingAfter must be positive")
        try require(transfers.decisionTimeout > .zero, "transfers.decisionTimeout must be positive")
        if let delay = connection.acknowledgementDelay {
            try require(
                delay > .zero && delay <= .seconds(1),
                "connection.acknowledgementDelay must be positive and at most 1 s"
            )
        }
    }

    /// The peer is reported disconnected when silent this long (GKSession's `disconnectTimeout`).
    public var disconnectTimeout: Duration {
        get { connection.disconnectTimeout }
        set { connection.disconnectTimeout = newValue }
    }

    /// `$HUDDLE_HOME`, else `$XDG_DATA_HOME/huddle`, else `$HOME/.local/share/huddle`: see
    /// ``DataDirectory/resolve(environment:passwordDatabaseHome:)``.
    public static func defaultDataDirectory() -> URL { DataDirectory.resolve() }
}
