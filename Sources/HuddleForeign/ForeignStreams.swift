public import NIOCore
import NIOPosix

/// Where the foreign protocols' TCP connections are made: on sockets (``SocketStreams``, the default), or in a
/// test's memory (`MemoryStreams` in the test support). The protocol code sets up each connection's pipeline in
/// `initialize`, on the connection's event loop, the same either way (docs/testing.md, "What is real and what is
/// simulated").
public protocol ForeignStreams: Sendable {
    /// A listener on `host`:`port` (0: any free port; its `localAddress` names the one it got) whose accepted
    /// connections `initialize` sets up.
    func listen(
        host: String,
        port: Int,
        group: any EventLoopGroup,
        initialize: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) async throws -> any Channel

    /// A listener as above that hands out each accepted connection as what `initialize` made of it, in order.
    func listen<Output: Sendable>(
        host: String,
        port: Int,
        group: any EventLoopGroup,
        initialize: @escaping @Sendable (any Channel) -> EventLoopFuture<Output>
    ) async throws -> NIOAsyncChannel<Output, Never>

    /// A connection to `host`:`port`, given up after `timeout`, as what `initialize` made of it.
    func connect<Output: Sendable>(
        host: String,
        port: Int,
        group: any EventLoopGroup,
        timeout: TimeAmount,
        initialize: @escaping @Sendable (any Channel) -> EventLoopFuture<Output>
    ) async throws -> Output
}

/// TCP sockets: listeners reuse their address (a restart binds at once), connections send without delay (the
/// protocols' small packets and HTTP heads go as written).
public struct SocketStreams: ForeignStreams {
    public init() {}

    public func listen(
        host: String,
        port: Int,
        group: any EventLoopGroup,
        initialize: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) async throws -> any Channel {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer(initialize)
            .bind(host: host, port: port).get()
    }

    public func listen<Output: Sendable>(
        host: String,
        port: Int,
        group: any EventLoopGroup,
        initialize: @escaping @Sendable (any Channel) -> EventLoopFuture<Output>
    ) async throws -> NIOAsyncChannel<Output, Never> {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: port, childChannelInitializer: initialize)
    }

    public func connect<Output: Sendable>(
        host: String,
        port: Int,
        group: any EventLoopGroup,
        timeout: TimeAmount,
        initialize: @escaping @Sendable (any Channel) -> EventLoopFuture<Output>
    ) async throws -> Output {
        try await ClientBootstrap(group: group)
            .connectTimeout(timeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port, channelInitializer: initialize)
    }
}
