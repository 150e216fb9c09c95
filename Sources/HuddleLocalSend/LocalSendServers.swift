import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// The HTTP servers of a running ``LocalSendService``, each in a service group of its own, outside the service's
/// task tree.
///
/// A server is never cancelled while a connection it accepted waits to be served: NIO traps on such a connection
/// ("Deinited NIOAsyncWriter without calling finish()", apple/swift-nio#3481), which a `huddle receive` stopped by
/// Ctrl-C just as a device connected would hit. Servers are shut down gracefully instead: each stops accepting and
/// serves what it accepted, and is cancelled only if that takes longer than the limit (docs/localsend.md, "Limits").
final class LocalSendServers: Sendable {
    private let running = NIOLockedValueBox<[(group: ServiceGroup, task: Task<Void, any Error>)]>([])

    /// Runs `server` until ``shutDown(within:)``; the task ends early, with the server's error, when it cannot run
    /// (its port is taken).
    func run(_ server: some Service) -> Task<Void, any Error> {
        let group = ServiceGroup(
            configuration: .init(
                services: [server],
                logger: Logger(label: "huddle.localsend", factory: { _ in SwiftLogNoOpLogHandler() })
            )
        )
        // Unstructured on purpose: cancelling the service must not cancel a server (see above).
        let task = Task { try await group.run() }
        running.withLockedValue { $0.append((group, task)) }
        return task
    }

    /// Shuts every server down gracefully, and cancels those still running after `limit`; returns when all ended.
    /// Works the same when the calling task is cancelled.
    func shutDown(within limit: Duration) async {
        let servers = running.withLockedValue { all in
            defer { all = [] }
            return all
        }
        for server in servers { await server.group.triggerGracefulShutdown() }
        // Waited for in a task of its own, which the caller's cancellation does not reach.
        await Task {
            await withTaskGroup(of: Void.self) { waits in
                waits.addTask { for server in servers { _ = await server.task.result } }
                waits.addTask { try? await Task.sleep(for: limit) }
                await waits.next()
                waits.cancelAll()
            }
        }.value
        for server in servers {
            server.task.cancel()
            _ = await server.task.result
        }
    }
}
