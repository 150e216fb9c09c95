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
        try await join(port, from: "127.0.0.1", timeout: timeout) { dialler in
            try await dialler.testingEventLoop.flatSubmit { initialize(dialler) }.get()
        }.output
    }

    /// `count` connections from `host` to the listener at `port` that send nothing: a host holding places.
    public func openSilent(_ count: Int, from host: String, to port: Int) async throws -> SilentConnections {
        var accepted: [NIOAsyncTestingChannel] = []
        for _ in 0..<count {
            accepted.append(try await join(port, from: host, timeout: .seconds(5)) { _ in }.accepted)
        }
        return SilentConnections(accepted: accepted)
    }

    /// A connection to the listener at `port` from `host`, the dialling end set up by `initialize`; returns what
    /// that made and the listening end.
    private func join<Output: Sendable>(
        _ port: Int,
        from host: String,
        timeout: TimeAmount,
        initialize: (NIOAsyncTestingChannel) async throws -> Output
    ) async throws -> (output: Output, accepted: NIOAsyncTestingChannel) {
        guard let accept = listeners.withLockedValue({ $0[port] }) else {
            throw ChannelError.connectTimeout(timeout)
        }
        let dialler = NIOAsyncTestingChannel()
        let accepted = NIOAsyncTestingChannel()
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        let diallerAddress = try SocketAddress(ipAddress: host, port: 50_000 + made.withLockedValue { $0.count })
        try await accepted.bind(to: address)
        try await dialler.bind(to: diallerAddress)
        // As a socket accepted from a listener, the listening end knows its peer's address before it is set up.
        accepted.remoteAddress = diallerAddress
        try await accept(accepted)
        let output = try await initialize(dialler)
        made.withLockedValue { $0.append((dialler, accepted)) }
        let tasks = [MemoryPump.start(from: dialler, to: accepted), MemoryPump.start(from: accepted, to: dialler)]
        pumps.withLockedValue { $0 += tasks }
        try await accepted.connect(to: diallerAddress)
        try await dialler.connect(to: address)
        await dialler.testingEventLoop.run()
        return (output, accepted)
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

/// Connections made by ``MemoryStreams/openSilent(_:from:to:)``, seen from the listening end: which the listener
/// has closed, and its clock, which a test moves to reach a deadline.
public struct SilentConnections: Sendable {
    let accepted: [NIOAsyncTestingChannel]

    /// How many the listener has closed so far.
    public var closed: Int { accepted.count { !$0.isActive } }

    /// Moves the listening ends' clocks by `amount`, running what falls due (deadlines, idle timers).
    public func advanceTime(by amount: TimeAmount) async {
        for channel in accepted { await channel.testingEventLoop.advanceTime(by: amount) }
    }
}
