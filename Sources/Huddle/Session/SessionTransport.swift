public import HuddleTransport
public import NIOCore

/// What carries a session's connections: TCP sockets (``TCPSessionTransport``), or, in tests, memory. Either way
/// every connection runs the same pipeline (`PeerChannels.install`: TLS, framing, `PeerConnectionHandler`).
///
/// Test-only API (`@_spi(Testing)`): apps always use TCP.
@_spi(Testing) public protocol SessionTransport: Sendable {
    /// Listens at `host:port` (port 0 picks one); `wire` sets up each connection that `admission` lets in. The
    /// channel returned has the local address the session advertises.
    func listen(
        host: String,
        port: Int,
        group: any EventLoopGroup,
        tls: PeerTLS,
        admission: PeerAdmission,
        wire: @escaping @Sendable (any Channel) -> PeerChannels.Wiring
    ) async throws -> any Channel

    /// Connects to `address` as initiator; `onChannel` sees the channel before any of its events.
    func dial(
        _ address: SocketAddress,
        group: any EventLoopGroup,
        tls: PeerTLS,
        wiring: PeerChannels.Wiring,
        onChannel: @escaping @Sendable (any Channel) -> Void
    ) async throws -> any Channel

    /// Binds the socket of the session's unreliable messages on `port` (0: any) of `host` (`nil`: every address),
    /// failing when that port is taken. Packets `filter` admits go to `deliver`. The channel returned has the local
    /// address whose port peers are told, and takes `AddressedEnvelope<ByteBuffer>` writes.
    func bindDatagrams(
        host: String?,
        port: Int,
        group: any EventLoopGroup,
        filter: DatagramFilter,
        deliver: @escaping @Sendable ([UInt8], SocketAddress) -> Void
    ) async throws -> any Channel
}

/// The transport of every session outside tests: `PeerChannels` over TCP, and UDP for datagrams.
struct TCPSessionTransport: SessionTransport {
    func listen(
        host: String,
        port: Int,
        group: any EventLoopGroup,
        tls: PeerTLS,
        admission: PeerAdmission,
        wire: @escaping @Sendable (any Channel) -> PeerChannels.Wiring
    ) async throws -> any Channel {
        try await PeerChannels.listen(host: host, port: port, group: group, tls: tls, admission: admission, wire: wire)
    }

    func dial(
        _ address: SocketAddress,
        group: any EventLoopGroup,
        tls: PeerTLS,
        wiring: PeerChannels.Wiring,
        onChannel: @escaping @Sendable (any Channel) -> Void
    ) async throws -> any Channel {
        try await PeerChannels.dial(address, group: group, tls: tls, wiring: wiring, onChannel: onChannel)
    }

    func bindDatagrams(
        host: String?,
        port: Int,
        group: any EventLoopGroup,
        filter: DatagramFilter,
        deliver: @escaping @Sendable ([UInt8], SocketAddress) -> Void
    ) async throws -> any Channel {
        try await PeerDatagramChannel.bind(host: host, port: port, group: group, filter: filter, deliver: deliver)
    }
}
