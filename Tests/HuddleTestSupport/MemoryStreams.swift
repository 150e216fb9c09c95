public import HuddleForeign
import NIOConcurrencyHelpers
public import NIOCore
import NIOEmbedded

/// The foreign protocols' TCP connections in memory (``ForeignStreams``): a listener is a port number here, and
/// each connection two `NIOAsyncTestingChannel`s running the pipelines the protocol code sets up (real NIOSSL and
/// all), with a task each way handing over the bytes one end writes (``MemoryPump``). Hosts are not told apart:
/// a connection to any host reaches the listener at its port.
///
/// The channels' clocks never move, so no deadline of a connection (handshake, idle) fires: a test sees what the
/// devices do, not how fast the machine is. Closing one end closes the other once it has read all that was sent.
public final class MemoryStreams: ForeignStreams {
    private typealias Accept = @Sendable (NIOAsyncTestingChannel) async throws -> Void

    private let listeners = NIOLockedValueBox<[Int: Accept]>([:])
    private let nextPort = NIOLockedValueBox(30_000)
    private let pumps = NIOLockedValueBox<[Task<Void, Never>]>([])
    /// Every connection made so far (dialling end, listening end), in order.
    private let made = NIOLockedValueBox<[(dialler: NIOAsyncTestingChannel, listener: NIOAsyncTestingChannel)]>([])

    public init() {}

    /// How many connections were made so far.
    public var connections: Int { made.withLockedValue { $0.count } }

    public func listen(
        host: String,
        port: Int,
        group: any EventLoopGroup,
        initialize: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) async throws -> any Channel {
        let listener = NIOAsyncTestingChannel()
        try await register(listener, host: host, port: port) { accepted in
            try await accepted.testingEventLoop.flatSubmit { initialize(accepted) }.get()
        }
        return listener
    }

    public func listen<Output: Sendable>(
        host: String,
        port: Int,
        group: any EventLoopGroup,
        initialize: @escaping @Sendable (any Channel) -> EventLoopFuture<Output>
    ) async throws -> NIOAsyncChannel<Output, Never> {
        let listener = NIOAsyncTestingChannel()
        let channel = try await listener.testingEventLoop.executeInContext {
            try NIOAsyncChannel<Output, Never>(wrappingChannelSynchronously: listener)
        }
        try await register(listener, host: host, port: port) { accepted in
            let output = try await accepted.testingEventLoop.flatSubmit { initialize(accepted) }.get()
            try await listener.writeInbound(output)
        }
        return channel
    }

    public func connect<Output: Sendable>(
        host: String,
        port: Int,
        group: any EventLoopGroup,
        timeout: TimeAmount,
        initialize: @escaping @Sendable (any Channel) -> EventLoopFuture<Output>
    ) async throws -> Output {
        guard let accept = listeners.withLockedValue({ $0[port] }) else {
            throw ChannelError.connectTimeout(timeout)
        }
        let dialler = NIOAsyncTestingChannel()
        let accepted = NIOAsyncTestingChannel()
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        let diallerAddress = try SocketAddress(ipAddress: "127.0.0.1", port: 50_000 + made.withLockedValue { $0.count })
        try await accepted.bind(to: address)
        try await dialler.bind(to: diallerAddress)
        // As a socket accepted from a listener, the listening end knows its peer's address before it is set up.
        accepted.remoteAddress = diallerAddress
        try await accept(accepted)
        let output = try await dialler.testingEventLoop.flatSubmit { initialize(dialler) }.get()
        made.withLockedValue { $0.append((dialler, accepted)) }
        let tasks = [MemoryPump.start(from: dialler, to: accepted), MemoryPump.start(from: accepted, to: dialler)]
        pumps.withLockedValue { $0 += tasks }
        try await accepted.connect(to: diallerAddress)
        try await dialler.connect(to: address)
        await dialler.testingEventLoop.run()
        return output
    }

    /// Takes `port` (0: the next free one) for `listener`, until it closes.
    private func register(
        _ listener: NIOAsyncTestingChannel,
        host: String,
        port: Int,
        accept: @escaping Accept
    ) async throws {
        let number = try listeners.withLockedValue { listeners in
            var number = port
            if number == 0 {
                number = nextPort.withLockedValue {
                    $0 += 1
                    return $0
                }
            }
            guard listeners[number] == nil else { throw IOError(errnoCode: 98, reason: "bind") }
            listeners[number] = accept
            return number
        }
        try await listener.bind(to: SocketAddress(ipAddress: host == "0.0.0.0" ? "127.0.0.1" : host, port: number))
        // Active, as a listening socket is.
        try await listener.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9))
        listener.closeFuture.whenComplete { [weak self] _ in
            self?.listeners.withLockedValue { _ = $0.removeValue(forKey: number) }
        }
    }
}
