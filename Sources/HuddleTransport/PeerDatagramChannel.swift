public import NIOCore
import NIOPosix

/// The UDP socket of a session's sealed datagrams (`docs/wire-protocol.md` §8).
public enum PeerDatagramChannel {
    /// Binds a UDP socket on `port` (0: an ephemeral one) of `host`, or of `::` (IPv6 and IPv4) falling back to
    /// `0.0.0.0`. The port is this socket's alone: without `SO_REUSEADDR`, a second session's bind of a taken
    /// port fails instead of sharing it, which on Linux would send each datagram to one of the two
    /// (`docs/wire-protocol.md` §8, "The datagram port").
    ///
    /// Packets that name no link `filter` knows are dropped on the event loop; the rest go to `deliver` there.
    public static func bind(
        host: String?,
        port: Int = 0,
        group: any EventLoopGroup,
        filter: DatagramFilter,
        deliver: @escaping @Sendable ([UInt8], SocketAddress) -> Void
    ) async throws -> any Channel {
        func bind(_ host: String) async throws -> any Channel {
            try await DatagramBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try install(filter: filter, deliver: deliver, on: channel.pipeline.syncOperations)
                    }
                }
                .bind(host: host, port: port)
                .get()
        }
        if let host { return try await bind(host) }
        do { return try await bind("::") } catch { return try await bind("0.0.0.0") }
    }

    /// Sets up a datagram channel's pipeline as ``bind(host:group:filter:deliver:)`` does (tests use it on channels
    /// of their own).
    @_spi(Testing) public static func install(
        filter: DatagramFilter,
        deliver: @escaping @Sendable ([UInt8], SocketAddress) -> Void,
        on pipeline: ChannelPipeline.SynchronousOperations
    ) throws {
        try pipeline.addHandler(DatagramInboxHandler(filter: filter, deliver: deliver))
    }
}
