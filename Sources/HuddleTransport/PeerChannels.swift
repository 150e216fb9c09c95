import HuddleWire
public import NIOCore
import NIOPosix
import NIOSSL

/// Opens peer connections: a TCP listener whose every connection runs TLS and a `PeerConnectionHandler`, and
/// outgoing connections with the same pipeline.
public enum PeerChannels {
    /// What a new connection is set up with.
    public typealias Wiring = (
        setup: PeerConnectionHandler.Setup, verifier: PeerVerifier, sink: @Sendable (PeerConnectionEvent) -> Void
    )

    /// The event loops connections and datagram sockets run on unless a caller picks others: the process's shared
    /// group, one thread per core.
    public static var defaultEventLoopGroup: any EventLoopGroup { MultiThreadedEventLoopGroup.singleton }

    /// Listens on `host:port` (port 0 picks a free one). `wire` is called for each accepted connection that
    /// `admission` lets in; the others are closed at once.
    public static func listen(
        host: String,
        port: Int,
        group: any EventLoopGroup,
        tls: PeerTLS,
        admission: PeerAdmission = PeerAdmission(),
        wire: @escaping @Sendable (any Channel) -> Wiring
    ) async throws -> any Channel {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(receiveBuffer, value: receiveBufferBytes)
            .childChannelOption(unsentLowWater, value: unsentLowWaterBytes)
            .childChannelInitializer { channel in
                guard let ticket = admission.admit(channel.remoteAddress) else {
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    var wiring = wire(channel)
                    wiring.setup.admissionTicket = ticket
                    try install(
                        tls.serverHandler(verifier: wiring.verifier),
                        wiring: wiring,
                        on: channel.pipeline.syncOperations
                    )
                }
            }
            .bind(host: host, port: port)
            .get()
    }

    /// Connects to `address` and starts the handshake as initiator. `onChannel` sees the channel before any of
    /// its events can be reported.
    public static func dial(
        _ address: SocketAddress,
        group: any EventLoopGroup,
        tls: PeerTLS,
        wiring: Wiring,
        onChannel: @escaping @Sendable (any Channel) -> Void = { _ in }
    ) async throws -> any Channel {
        let timeout = wiring.setup.configuration.connectTimeout
        do {
            return try await ClientBootstrap(group: group)
                .connectTimeout(TimeAmount(timeout))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelOption(receiveBuffer, value: receiveBufferBytes)
                .channelOption(unsentLowWater, value: unsentLowWaterBytes)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        onChannel(channel)
                        try install(
                            tls.clientHandler(verifier: wiring.verifier),
                            wiring: wiring,
                            on: channel.pipeline.syncOperations
                        )
                    }
                }
                .connect(to: address)
                .get()
        } catch {
            throw PeerConnectionError.connectFailed("\(address): \(error)")
        }
    }

    /// The kernel's receive buffer of a peer connection. Left to autotuning it grows to several MiB while a
    /// transfer outruns the receiver's disk, and every chat message then waits behind that backlog; 1 MiB still
    /// covers the bandwidth-delay product of any local network (1 GiB/s × 1 ms).
    public static let receiveBufferBytes: SocketOptionValue = 1 << 20
    /// At most this much unsent data waits in the kernel's send buffer (TCP_NOTSENT_LOWAT): the rest waits in
    /// the channel's own buffer, where the writers' backpressure sees it.
    public static let unsentLowWaterBytes: SocketOptionValue = 128 << 10

    static let receiveBuffer = ChannelOptions.Types.SocketOption(level: .socket, name: .so_rcvbuf)
    static let unsentLowWater = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: notSentLowAt))
    #if os(Linux)
    static let notSentLowAt: CInt = 25  // TCP_NOTSENT_LOWAT in <linux/tcp.h>
    #else
    static let notSentLowAt: CInt = 0x201  // TCP_NOTSENT_LOWAT in <netinet/tcp.h>
    #endif

    /// Sets up a connection's pipeline: TLS, framing, `PeerConnectionHandler`. Test-only API for carriers other
    /// than TCP; `listen` and `dial` call it.
    @_spi(Testing) public static func install(
        _ tlsHandler: some ChannelHandler,
        wiring: Wiring,
        on pipeline: ChannelPipeline.SynchronousOperations
    ) throws {
        try pipeline.addHandler(tlsHandler)
        try pipeline.addHandler(
            ByteToMessageHandler(PeerFrameDecoder(maximumPayload: wiring.setup.configuration.maximumFramePayload))
        )
        try pipeline.addHandler(MessageToByteHandler(PeerFrameEncoder()))
        try pipeline.addHandler(
            PeerConnectionHandler(setup: wiring.setup, verifier: wiring.verifier, sink: wiring.sink)
        )
    }
}
