public import HummingbirdCore
import Logging
public import NIOCore
public import ServiceLifecycle

/// Where LocalSend's HTTP servers take their connections: TCP sockets, by Hummingbird's server (``SocketServing``,
/// the default), or a test's memory. Either way each connection runs the same `connection`: Hummingbird's
/// HTTP/1.1 channel (behind TLS for the API) answering with the service's routes (docs/testing.md, "What is real
/// and what is simulated").
public protocol LocalSendServing: Sendable {
    /// A service that serves `connection` at `host`:`port` (0: any free port) until it is shut down gracefully
    /// (what it accepted is served to the end) or cancelled. `running` gets the port once it accepts; when the
    /// port is taken the service ends with the error instead.
    func server(
        _ connection: some ServerChildChannel,
        host: String,
        port: Int,
        group: any EventLoopGroup,
        running: @escaping @Sendable (Int) -> Void
    ) -> any Service
}

/// Hummingbird's server on a TCP socket, its address reused (a restart binds at once).
public struct SocketServing: LocalSendServing {
    public init() {}

    public func server(
        _ connection: some ServerChildChannel,
        host: String,
        port: Int,
        group: any EventLoopGroup,
        running: @escaping @Sendable (Int) -> Void
    ) -> any Service {
        connection.server(
            configuration: ServerConfiguration(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { running($0.localAddress?.port ?? port) },
            eventLoopGroup: group,
            logger: Logger(label: "huddle.localsend", factory: { _ in SwiftLogNoOpLogHandler() })
        )
    }
}
