@_spi(Testing) public import Huddle
@_spi(Testing) public import HuddleTransport
import HuddleWire
import NIOConcurrencyHelpers
public import NIOCore
import NIOEmbedded

/// Sessions' connections in memory: each is two `NIOAsyncTestingChannel`s running the pipeline `PeerChannels`
/// installs (real NIOSSL, framing, `PeerConnectionHandler`), with a task each way handing over the bytes one end
/// writes. No socket: a listener is a port number in this network, and the sessions find each other through an
/// `InMemoryPeerDirectory` as usual.
///
/// The channels' event loops keep their own clocks, which nothing moves: a connection's timers (heartbeat,
/// handshake deadline) never fire, so a test sees what the peers do, not how fast the machine is. Each connection
/// made is a ``MemoryLink`` (``links``) that a test can break. Datagrams go from socket to socket by port, in order
/// and none lost, and a test can send its own (``sendDatagram(_:to:)``). A session uses the network when its
/// configuration's `transport` is this network (``configure(_:)``).
public final class MemoryNetwork: Sendable {
    let carrier = MemoryCarrier()

    public init() {}

    /// Every connection made in this network so far, in the order they were dialled.
    public var links: [MemoryLink] { carrier.links.withLockedValue { $0 } }

    /// The latest connection between the two sessions, whichever dialled.
    public func link(between one: PeerSession, and other: PeerSession) -> MemoryLink? {
        let pair: Set = [one.peerID.rawValue, other.peerID.rawValue]
        return links.last { Set([$0.diallerInstance, $0.listenerInstance]) == pair }
    }

    /// Makes a session's connections go through this network.
    public func configure(_ configuration: inout PeerSessionConfiguration) {
        configuration.transport = carrier
    }

    /// Dials `address` in this network as a session would (for a connection made by hand).
    public func dial(
        _ address: SocketAddress,
        tls: PeerTLS,
        wiring: PeerChannels.Wiring
    ) async throws -> any Channel {
        try await carrier.dial(address, group: PeerChannels.defaultEventLoopGroup, tls: tls, wiring: wiring) { _ in }
    }

    /// While `blocked`, every datagram the sessions write is lost, as behind a packet filter that drops UDP; the
    /// connections are untouched.
    public func blockDatagrams(_ blocked: Bool) {
        carrier.datagramsBlocked.withLockedValue { $0 = blocked }
    }

    /// Sends `bytes` as one datagram to the datagram socket at `port` in this network, from a socket of nobody's
    /// (port 1). Returns once the socket has handled it; a port nobody holds loses it.
    public func sendDatagram(_ bytes: [UInt8], to port: Int) async throws {
        try await sendDatagrams([bytes], to: port)
    }

    /// Sends each of `packets` as a datagram to the socket at `port`, in order, as ``sendDatagram(_:to:)`` does,
    /// handed over in one go: one hop to the socket's loop for them all, whatever the machine's load.
    public func sendDatagrams(_ packets: [[UInt8]], to port: Int) async throws {
        await carrier.deliver(
            packets.map(ByteBuffer.init(bytes:)),
            to: port,
            from: try SocketAddress(ipAddress: "127.0.0.1", port: 1)
        )
    }

    /// Listens at a port of this network with a pipeline of the caller's own on each accepted end (a stranger at an
    /// address a session remembers, say); returns the listener, whose local address names the port. `install`
    /// gets the accepted end too.
    public func listen(
        installing install: @escaping @Sendable (ChannelPipeline.SynchronousOperations, any Channel) throws -> Void
    ) async throws -> any Channel {
        try await carrier.listen(port: 0) { server, _ in
            try await server.testingEventLoop.executeInContext { try install(server.pipeline.syncOperations, server) }
            return nil
        }
    }

    /// Dials `address` in this network with a pipeline of the caller's own on the dialling end (a rogue peer).
    public func dial(
        _ address: SocketAddress,
        installing install: @escaping @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void
    ) async throws -> any Channel {
        try await carrier.connect(to: address, from: nil) { client in
            try await client.testingEventLoop.executeInContext { try install(client.pipeline.syncOperations) }
        }
    }
}

/// One connection in a ``MemoryNetwork``: the dialling end's channel, the listening end's, and the bytes between.
public final class MemoryLink: Sendable {
    public enum End: Sendable { case dialler, listener }

    let dialler: NIOAsyncTestingChannel
    let listener: NIOAsyncTestingChannel
    /// The peer IDs (raw) of the sessions at each end; `nil` for a connection dialled by hand.
    let diallerInstance: String?
    let listenerInstance: String?
    private let lost = NIOLockedValueBox<Set<End>>([])

    init(
        dialler: NIOAsyncTestingChannel,
        listener: NIOAsyncTestingChannel,
        instances: (dialler: String?, listener: String?)
    ) {
        self.dialler = dialler
        self.listener = listener
        (diallerInstance, listenerInstance) = instances
    }

    /// What `session` writes from now on is lost on the way (as ``MemoryLink/loseWrites(of:)`` for its end).
    public func loseWrites(of session: PeerSession) {
        loseWrites(of: session.peerID.rawValue == listenerInstance ? .listener : .dialler)
    }

    /// What `end` writes from now on is lost on the way, as on a link gone dead one way: the other end neither reads
    /// it nor acknowledges it, and nothing tells either end.
    public func loseWrites(of end: End) {
        _ = lost.withLockedValue { $0.insert(end) }
    }

    func losesWrites(of end: End) -> Bool { lost.withLockedValue { $0.contains(end) } }

    /// Cuts the link: nothing crosses any more, and each end gives up on it as it would when its peer is gone
    /// (TLS's wait for the peer's close_notify runs out on the end's own clock). No goodbye reaches either side.
    public func cut() async {
        loseWrites(of: .dialler)
        loseWrites(of: .listener)
        for channel in [dialler, listener] where channel.isActive {
            channel.close(promise: nil)
            await channel.testingEventLoop.advanceTime(by: .seconds(60))
        }
    }
}

/// The ``MemoryNetwork``'s side of the session's transport seam.
final class MemoryCarrier: SessionTransport {
    /// Sets up the listening end of a new connection, which comes from the address given; returns the peer ID
    /// (raw) of the session listening, nil for a listener of a test's own.
    typealias Accept = @Sendable (NIOAsyncTestingChannel, SocketAddress) async throws -> String?

    private let listeners = NIOLockedValueBox<[Int: Accept]>([:])
    private let nextPort = NIOLockedValueBox(40_000)
    private let pumps = NIOLockedValueBox<[Task<Void, Never>]>([])
    let links = NIOLockedValueBox<[MemoryLink]>([])
    let datagramsBlocked = NIOLockedValueBox(false)
    private let datagramSockets = NIOLockedValueBox<[Int: NIOAsyncTestingChannel]>([:])

    /// Binds `port` (the number of a memory listener, as a session asks), failing when a datagram socket has it;
    /// 0 takes the next free number.
    func bindDatagrams(
        host: String?,
        port wanted: Int,
        group: any EventLoopGroup,
        filter: DatagramFilter,
        deliver: @escaping @Sendable ([UInt8], SocketAddress) -> Void
    ) async throws -> any Channel {
        if wanted != 0, datagramSockets.withLockedValue({ $0[wanted] != nil }) {
            throw MemoryPortTaken(port: wanted)
        }
        let port =
            wanted != 0
            ? wanted
            : nextPort.withLockedValue {
                $0 += 1
                return $0
            }
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        let channel = NIOAsyncTestingChannel()
        try await channel.testingEventLoop.executeInContext {
            try PeerDatagramChannel.install(filter: filter, deliver: deliver, on: channel.pipeline.syncOperations)
        }
        try await channel.bind(to: address)
        // Active, as a bound UDP socket is; the writes name their own addresses.
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9))
        datagramSockets.withLockedValue { $0[port] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.datagramSockets.withLockedValue { _ = $0.removeValue(forKey: port) }
        }
        let pump = Task { [weak self] in
            while let envelope = try? await channel.waitForOutboundWrite(as: AddressedEnvelope<ByteBuffer>.self) {
                await self?.deliver(envelope, from: address)
            }
        }
        pumps.withLockedValue { $0.append(pump) }
        return channel
    }

    /// Hands `envelope` to the datagram socket at its port, as coming from `source`; lost when nobody holds it.
    func deliver(_ envelope: AddressedEnvelope<ByteBuffer>, from source: SocketAddress) async {
        guard let port = envelope.remoteAddress.port, !datagramsBlocked.withLockedValue({ $0 }) else { return }
        await deliver([envelope.data], to: port, from: source)
    }

    /// Hands each of `payloads` to the datagram socket at `port`, in order, as coming from `source`; lost when
    /// nobody holds it.
    func deliver(_ payloads: [ByteBuffer], to port: Int, from source: SocketAddress) async {
        guard let socket = datagramSockets.withLockedValue({ $0[port] }), socket.isActive else { return }
        try? await socket.testingEventLoop.executeInContext {
            let pipeline = socket.pipeline.syncOperations
            for payload in payloads {
                pipeline.fireChannelRead(NIOAny(AddressedEnvelope(remoteAddress: source, data: payload)))
            }
            pipeline.fireChannelReadComplete()
        }
        await socket.testingEventLoop.run()
    }

    func listen(
        host: String,
        port: Int,
        group: any EventLoopGroup,
        tls: PeerTLS,
        admission: PeerAdmission,
        wire: @escaping @Sendable (any Channel) -> PeerChannels.Wiring
    ) async throws -> any Channel {
        try await listen(port: port) { server, clientAddress in
            guard let ticket = admission.admit(clientAddress) else {
                throw PeerConnectionError.connectFailed("\(server.localAddress.map { "\($0)" } ?? "?"): refused")
            }
            var admitted = wire(server)
            admitted.setup.admissionTicket = ticket
            let serverWiring = admitted
            try await server.testingEventLoop.executeInContext {
                try PeerChannels.install(
                    tls.serverHandler(verifier: serverWiring.verifier),
                    wiring: serverWiring,
                    on: server.pipeline.syncOperations
                )
            }
            return serverWiring.setup.hello.instance
        }
    }

    /// A listener at `port` (0: the next free one) whose connections `accept` sets up.
    func listen(port: Int, accept: @escaping Accept) async throws -> any Channel {
        let number =
            port != 0
            ? port
            : nextPort.withLockedValue {
                $0 += 1
                return $0
            }
        listeners.withLockedValue { $0[number] = accept }
        let channel = NIOAsyncTestingChannel()
        try await channel.bind(to: SocketAddress(ipAddress: "127.0.0.1", port: number))
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.listeners.withLockedValue { _ = $0.removeValue(forKey: number) }
        }
        return channel
    }

    func dial(
        _ address: SocketAddress,
        group: any EventLoopGroup,
        tls: PeerTLS,
        wiring: PeerChannels.Wiring,
        onChannel: @escaping @Sendable (any Channel) -> Void
    ) async throws -> any Channel {
        try await connect(to: address, from: wiring.setup.hello.instance) { client in
            onChannel(client)
            try await client.testingEventLoop.executeInContext {
                try PeerChannels.install(
                    tls.clientHandler(verifier: wiring.verifier),
                    wiring: wiring,
                    on: client.pipeline.syncOperations
                )
            }
        }
    }

    /// Connects a new channel to the listener at `address`, after `install` set up the dialling end's pipeline.
    func connect(
        to address: SocketAddress,
        from instance: String?,
        install: (NIOAsyncTestingChannel) async throws -> Void
    ) async throws -> NIOAsyncTestingChannel {
        guard let port = address.port, let accept = listeners.withLockedValue({ $0[port] }) else {
            throw PeerConnectionError.connectFailed("\(address): nobody listens there")
        }
        let client = NIOAsyncTestingChannel()
        let server = NIOAsyncTestingChannel()
        let clientAddress = try SocketAddress(ipAddress: "127.0.0.1", port: 50_000 + port % 10_000)
        try await server.bind(to: address)
        // As a socket accepted from a listener, the listening end knows its peer's address before it is wired.
        server.remoteAddress = clientAddress
        let listenerInstance = try await accept(server, clientAddress)
        try await install(client)
        let link = MemoryLink(
            dialler: client,
            listener: server,
            instances: (instance, listenerInstance)
        )
        links.withLockedValue { $0.append(link) }
        let tasks = [
            MemoryPump.start(from: client, to: server, unless: { link.losesWrites(of: .dialler) }),
            MemoryPump.start(from: server, to: client, unless: { link.losesWrites(of: .listener) }),
        ]
        pumps.withLockedValue { $0 += tasks }
        try await server.connect(to: clientAddress)
        try await client.connect(to: address)
        await client.testingEventLoop.run()
        return client
    }
}

/// A memory socket's bind of a port another memory socket has.
struct MemoryPortTaken: Error {
    let port: Int
}
