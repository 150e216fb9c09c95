public import HuddleForeign
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP listener on an address of this host (127.0.0.1 unless told) that says nothing and records each connection it accepts (the source address):
/// a stand-in for a host that should, or should not, be dialled. Accepted connections stay open until
/// ``close()``, so the dialler never sees a failure.
public final class ListeningProbe: Sendable {
    public let port: Int
    /// The source address of each connection accepted, in order.
    public let accepted: EventRecorder<String>
    private let server: any Channel
    private let children: NIOLockedValueBox<[any Channel]>

    private init(
        port: Int,
        accepted: EventRecorder<String>,
        server: any Channel,
        children: NIOLockedValueBox<[any Channel]>
    ) {
        self.port = port
        self.accepted = accepted
        self.server = server
        self.children = children
    }

    /// Listens on any free port of `host` (an address of this host), on a socket or, given `streams`, there.
    public static func start(
        on host: String = "127.0.0.1",
        through streams: any ForeignStreams = SocketStreams()
    ) async throws -> ListeningProbe {
        let accepted = EventRecorder<String>()
        let children = NIOLockedValueBox<[any Channel]>([])
        let server = try await streams.listen(host: host, port: 0, group: MultiThreadedEventLoopGroup.singleton) {
            channel in
            children.withLockedValue { $0.append(channel) }
            accepted.record(channel.remoteAddress?.ipAddress ?? "?")
            return channel.eventLoop.makeSucceededVoidFuture()
        }
        return ListeningProbe(
            port: server.localAddress?.port ?? 0,
            accepted: accepted,
            server: server,
            children: children
        )
    }

    public func close() async {
        try? await server.close()
        for child in children.withLockedValue({ $0 }) { try? await child.close() }
    }
}
