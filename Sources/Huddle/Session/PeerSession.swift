import Foundation
import HuddleDiscovery
import HuddleMDNSCore
public import HuddleTransport
import HuddleWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Synchronization

/// A GKSession for today: peers that share a session ID find each other, ask to connect, compare a code at first
/// contact, and exchange messages over mutually authenticated TLS 1.3.
///
/// ```swift
/// var configuration = PeerSessionConfiguration()
/// configuration.connectsToFoundPeers = true  // one side of each pair dials (DialOrder)
/// let session = try await PeerSession.loadingIdentity(
///     sessionID: "TypingTogether", displayName: "Ada", configuration: configuration)
/// try await session.start()
/// for await event in session.events {
///     switch event {
///     case .connectionRequest(let request): await session.accept(request)   // after the user compared the code
///     case .received(let bytes, let peer, _): print(peer, String(decoding: bytes, as: UTF8.self))
///     default: break
///     }
/// }
/// ```
public actor PeerSession {
    public nonisolated let sessionID: String
    public nonisolated let displayName: String
    public nonisolated let mode: PeerSessionMode
    /// This session's own peer ID.
    public nonisolated let peerID: PeerID
    public nonisolated let identity: DeviceIdentity
    public nonisolated let trustStore: TrustStore
    /// The DNS-SD service type the session ID maps to (`MDNSServiceType(sessionID:)`).
    public nonisolated let serviceType: String
    /// Everything that happens, in order: each access is a subscription of its own (``PeerSessionEvents``).
    /// Events from before the first subscription wait for it, so subscribing just after ``start()`` misses
    /// nothing.
    public nonisolated var events: PeerSessionEvents { broadcast.subscribe() }

    nonisolated let configuration: PeerSessionConfiguration
    nonisolated let broadcast: EventBroadcast<PeerSessionEvent>
    nonisolated let inbox: AsyncStream<Inbox>.Continuation
    nonisolated let inboxStream: AsyncStream<Inbox>
    /// How connections are set up, dialled or accepted.
    nonisolated let wiring: ConnectionWiring
    /// The channel of each connected peer (for sends that need not wait for the actor) and the receive budget.
    nonisolated let flow: ReceiveFlow
    let tls: PeerTLS
    nonisolated let admission: PeerAdmission
    /// The pairing budget, charged by every connection before a pairing run starts.
    nonisolated let pairingGate: PairingGate
    /// The pairing links this session issued (``issuePairingLink(lifetime:hosts:)``).
    nonisolated let pairingLinks: PairingLinks
    /// The directory, the advert and the browse; it runs on this actor's executor.
    nonisolated let presence: SessionPresence
    /// The direct addresses and what answers there; on this actor's executor.
    nonisolated let directPeers: DirectPeers
    /// The wide-area DNS-SD domain, when one is configured; on this actor's executor.
    nonisolated let wideArea: SessionWideArea?
    var group: any EventLoopGroup { configuration.eventLoopGroup }
    /// What the rules read as `now` and the timers wait on (``PeerSessionConfiguration/clock``); a clipboard sync
    /// paces its writes on it too.
    @_spi(Testing) public nonisolated var clock: any SessionClock { configuration.clock }

    var listener: (any Channel)?
    /// What the advert carries beside the name (``setLobby(_:)``).
    var advertisedLobby: PeerLobby
    /// The UDP socket and each connection's datagram link; it runs on this actor's executor.
    nonisolated let datagrams: SessionDatagrams
    /// Background work the session cancels when it stops; each task leaves the table when it ends, so a long-lived
    /// session with many connections does not accumulate them.
    var tasks: [TaskNumber: Task<Void, Never>] = [:]
    var nextTaskNumber = 0
    /// Every rule about peers and connections; this actor only carries out what it decides.
    var machine: PeerSessionStateMachine
    /// The channel, message route and datagram link of each connection, by number.
    var io: [ConnectionID: ConnectionIO] = [:]
    /// The `connect` calls waiting for their dial, by its number.
    var connectWaiters: [ConnectionID: CheckedContinuation<Void, any Error>] = [:]
    /// The task of each waiting `connect` call's deadline timer, by its dial number.
    var connectDeadlines: [ConnectionID: TaskNumber] = [:]
    /// What the rules decided for a `connect` that was not waiting yet.
    var finishedWaiters: [ConnectionID: PeerSessionError?] = [:]
    /// Every transfer and its I/O; it runs on this actor's executor.
    nonisolated let transfers: SessionTransfers
    var started = false
    var stopped: Bool { machine.stopped }

    /// The session shares its transfers' executor: it hands them its connections' transfer messages and endings
    /// synchronously, in the order they came, and its transfer calls need no thread switch.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { transfers.unownedExecutor }

    /// Adverts ignored because the peer table was full (`docs/security.md` §5 C8) or they named another key for a
    /// verified peer.
    public var ignoredAdverts: Int { machine.ignoredAdverts }

    /// Makes a session from what it needs, already loaded: it does no I/O until ``start()`` (or ``run()``). To load
    /// this device's key and trust store from ``PeerSessionConfiguration/dataDirectory`` first, use
    /// ``loadingIdentity(sessionID:displayName:mode:configuration:directory:)``.
    /// - Parameters:
    ///   - sessionID: apps with the same ID meet; others never do.
    ///   - displayName: shown to others (advertised as the DNS-SD instance name).
    ///   - directory: how to find peers; `nil` for multicast DNS as ``PeerSessionConfiguration/discovery`` says,
    ///     with a stack the session owns. A directory passed in stays the caller's: ``stop()`` does not shut it
    ///     down.
    ///   - identity: this device's key (``DeviceIdentity/loadOrCreate(in:)``, or ``DeviceIdentity/ephemeral()``).
    ///   - trustStore: the devices this one has paired with (``TrustStore/init(directory:)``, or an empty one).
    /// - Throws: ``PeerSessionError`` for a configuration that does not hold together, TLS errors when the key
    ///   cannot be used.
    public init(
        sessionID: String,
        displayName: String,
        mode: PeerSessionMode = .peer,
        configuration: PeerSessionConfiguration = .init(),
        directory: (any PeerDirectory)? = nil,
        identity: DeviceIdentity,
        trustStore: TrustStore
    ) async throws {
        try configuration.validate()
        self.sessionID = sessionID
        self.displayName = displayName
        self.mode = mode
        self.configuration = configuration
        self.advertisedLobby = configuration.lobby
        self.peerID = .random()
        self.serviceType = MDNSServiceType(sessionID: sessionID).description
        self.identity = identity
        self.trustStore = trustStore
        self.tls = try PeerTLS(identity: self.identity)
        self.machine = PeerSessionStateMachine(
            local: .init(device: self.identity.deviceID, instance: self.peerID, mode: mode),
            configuration: configuration,
            trust: self.trustStore
        )
        self.admission = PeerAdmission(
            maximumTotal: configuration.maximumPendingConnections,
            maximumPerAddress: configuration.maximumPendingConnectionsPerAddress
        )
        let flow = ReceiveFlow(
            budget: configuration.maximumUndeliveredBytes,
            transferBudget: configuration.transfers.maximumBufferedBytes,
            pacing: TransferPacing(configuration.transfers.rateLimits),
            now: { [clock = configuration.clock] in clock.now },
            paused: configuration.receivePaused
        )
        // A received message's charge against the budget rides with it (``ReceiveFlow``).
        let broadcast = EventBroadcast<PeerSessionEvent>()
        let clock = configuration.clock
        pairingGate = PairingGate(
            configuration: configuration.pairingBudget,
            now: { clock.now },
            paused: { broadcast.yield(.pairingPaused($0)) }
        )
        pairingLinks = PairingLinks(now: { clock.now })
        self.flow = flow
        self.broadcast = broadcast
        (inboxStream, inbox) = AsyncStream.makeStream()
        let transfers = SessionTransfers(configuration: configuration, flow: flow, broadcast: broadcast)
        self.transfers = transfers
        self.datagrams = SessionDatagrams(
            configuration: configuration,
            flow: flow,
            broadcast: broadcast,
            sharingExecutorOf: transfers
        )
        presence = SessionPresence(directory: directory, sharingExecutorOf: transfers)
        let datagrams = self.datagrams
        wiring = ConnectionWiring(
            hello: PeerHello(
                versions: configuration.connection.handshake.versions,
                sessionType: serviceType,
                instance: peerID.rawValue,
                displayName: displayName,
                mode: mode.wireValue
            ),
            identity: identity,
            trustStore: trustStore,
            configuration: configuration,
            flow: flow,
            pairingGate: pairingGate,
            pairingLinks: pairingLinks,
            inbox: inbox,
            broadcast: broadcast,
            datagramPort: { datagrams.port.load(ordering: .relaxed) }
        )
        wideArea = configuration.wideArea.map {
            SessionWideArea(configuration: $0, clock: configuration.clock, sharingExecutorOf: transfers)
        }
        directPeers = DirectPeers(
            addresses: configuration.peerAddresses,
            introducer: PeerIntroducer(
                wiring: wiring,
                transport: configuration.transport,
                group: configuration.eventLoopGroup,
                tls: tls
            ),
            clock: configuration.clock,
            sharingExecutorOf: transfers
        )
    }

    /// Loads (or makes) this device's key and loads its trust store from ``PeerSessionConfiguration/dataDirectory``,
    /// then makes the session (``init(sessionID:displayName:mode:configuration:directory:identity:trustStore:)``).
    /// - Throws: ``IdentityError`` when the device key cannot be read or the data directory is not this user's
    ///   alone, and what the initializer throws.
    public static func loadingIdentity(
        sessionID: String,
        displayName: String,
        mode: PeerSessionMode = .peer,
        configuration: PeerSessionConfiguration = .init(),
        directory: (any PeerDirectory)? = nil
    ) async throws -> PeerSession {
        let identity = try DeviceIdentity.loadOrCreate(in: configuration.dataDirectory)
        return try await PeerSession(
            sessionID: sessionID,
            displayName: displayName,
            mode: mode,
            configuration: configuration,
            directory: directory,
            identity: identity,
            trustStore: TrustStore(directory: configuration.dataDirectory)
        )
    }

    /// Starts accepting (server, peer) and advertising and browsing as the mode says.
    public func start() async throws {
        guard !started else { return }
        guard !stopped else { throw PeerSessionError.stopped }
        started = true
        try await presence.openDirectory(discovery: configuration.discovery)
        let stream = inboxStream
        track { await self.runInbox(stream) }
        watchTrustStore()
        // Datagrams on the TCP port's number, so that one port to open serves both (`docs/wire-protocol.md` §8). Each
        // connection's HELLO names the datagram port as it is when the connection comes, so a given port is bound
        // before the listener: a peer that knows it may dial at once. A port chosen by the listener (none was given,
        // or the given one was taken) is known to nobody before the advert, so the socket moves there afterwards.
        let wanted = configuration.listenPort
        if wanted != 0 { try await openDatagrams(on: wanted) }
        if mode.advertises { listener = try await wiring.listen(group: group, tls: tls, admission: admission) }
        let chosen = listener?.localAddress?.port ?? wanted
        if wanted == 0 || chosen != wanted {
            await datagrams.close()
            try await openDatagrams(on: chosen)
        }
        let bound = datagrams.port.load(ordering: .relaxed)
        if chosen != 0, bound != chosen {
            configuration.logger.warning(
                "UDP port \(chosen) is taken: datagrams use port \(bound), which a packet filter that opens only \(chosen) drops"
            )
        }
        try await setAvailable(true)
    }

    func openDatagrams(on port: Int) async throws {
        try await datagrams.open(
            host: configuration.listenHost,
            port: port,
            group: group,
            transport: configuration.transport
        ) { [inbox, clock] bytes, source in inbox.yield(.datagram(bytes, source, at: clock.now)) }
    }

    /// Runs `work` in the background until it ends or the session stops.
    @discardableResult
    func track(_ work: @escaping @Sendable () async -> Void) -> TaskNumber {
        let number = TaskNumber(rawValue: nextTaskNumber)
        nextTaskNumber += 1
        // The task cannot reach `forget` before this actor-isolated call has stored it.
        tasks[number] = Task { [weak self] in
            await work()
            await self?.forget(task: number)
        }
        return number
    }

    func forget(task number: TaskNumber) {
        tasks[number] = nil
    }

    /// Handles the inbox on the actor, one item after another.
    func runInbox(_ stream: AsyncStream<Inbox>) async {
        for await item in stream { await handle(item) }
    }

    /// Stops advertising and browsing, says goodbye to every peer and closes everything.
    public func stop() async {
        guard !stopped else { return }
        let channels = io.values.compactMap(\.channel)
        // The rules forget every connection here, so the connections' own endings (arriving while this waits)
        // change nothing: the goodbyes go out, waiting calls and transfers learn that the session stopped, and what
        // was kept for redelivery is reported.
        apply(.stop)
        io.removeAll()
        await directPeers.stop()
        await wideArea?.stopBrowsing()
        await wideArea?.withdraw()
        await presence.hide()
        for channel in channels { try? await channel.closeFuture.get() }
        try? await listener?.close()
        await datagrams.close()
        for task in tasks.values { task.cancel() }
        await presence.close()
        inbox.finish()
        broadcast.finish()
    }

    /// The peers in `state`.
    public func peers(in state: PeerState) -> [PeerID] { machine.peers(in: state) }

    /// What is known about `peer`.
    public func info(for peer: PeerID) -> PeerInfo? { machine.info(for: peer) }

    /// The peer's name, cleaned for display.
    public func displayName(for peer: PeerID) -> String? { machine.info(for: peer)?.displayName }

    func emit(_ event: PeerSessionEvent) {
        broadcast.yield(event)
    }

    /// Bytes received and not yet taken from ``events``.
    public nonisolated var undeliveredBytes: Int { flow.undelivered }

    /// Bytes of incoming transfers received and not yet written to disk: now, and the most there ever were.
    ///
    /// Bounded by ``TransferConfiguration/maximumBufferedBytes`` plus what one read of the socket brings.
    public nonisolated var bufferedTransferBytes: (now: Int, peak: Int) { flow.bufferedTransferBytes }
}
