import HuddleForeign
import HuddleLocalSend
import HuddleTestSupport
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// LocalSend's servers in memory: each connection a ``MemoryStreams`` one, run by the same Hummingbird channel
/// (HTTP/1.1, behind real TLS for the API) as on a socket. A service's client dials through the same streams.
struct MemoryServing: LocalSendServing {
    let streams: MemoryStreams

    func server(
        _ connection: some ServerChildChannel,
        host: String,
        port: Int,
        group: any EventLoopGroup,
        running: @escaping @Sendable (Int) -> Void
    ) -> any Service {
        MemoryServer(connection: connection, streams: streams, host: host, port: port, running: running)
    }
}

/// One server in memory: serves each accepted connection until the listener closes (a graceful shutdown closes
/// it), then waits for those it accepted.
struct MemoryServer<Connection: ServerChildChannel>: Service {
    let connection: Connection
    let streams: MemoryStreams
    let host: String
    let port: Int
    let running: @Sendable (Int) -> Void

    func run() async throws {
        let logger = Logger(label: "huddle.localsend.memory", factory: { _ in SwiftLogNoOpLogHandler() })
        let connection = self.connection
        let listener = try await streams.listen(
            host: host,
            port: port,
            group: MultiThreadedEventLoopGroup.singleton
        ) { channel in
            connection.setup(channel: channel, logger: logger)
        }
        running(listener.channel.localAddress?.port ?? port)
        try await withGracefulShutdownHandler {
            try await listener.executeThenClose { accepted in
                try await withThrowingDiscardingTaskGroup { handlers in
                    for try await value in accepted {
                        handlers.addTask { await connection.handle(value: value, logger: logger) }
                    }
                }
            }
        } onGracefulShutdown: {
            listener.channel.close(promise: nil)
        }
    }
}
