import Logging
import NIOConcurrencyHelpers
public import ServiceLifecycle

/// Runs a program's work beside the services it uses (its `PeerSession`, a `ClipboardSync`) in one
/// swift-service-lifecycle `ServiceGroup`.
///
/// The group ends when the work ends, or at SIGINT or SIGTERM: then it shuts down gracefully in reverse order, so
/// the work is cancelled first, then the clipboard sync stops, then the session says goodbye to every peer. A
/// service that fails (a session that cannot start) ends the group with its error.
public enum ServiceRunner {
    /// Runs `work` with `services` (in the order they depend on each other: the session first).
    ///
    /// - Returns: what `work` returned, or nil when a signal ended it.
    public static func run<T: Sendable>(
        _ services: [any Service],
        _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        let outcome = NIOLockedValueBox<Result<T, any Error>?>(nil)
        let signalled = NIOLockedValueBox(false)
        let worker = ClosureService {
            // Until `work` returns, nothing but a signal (or a failed service) shuts the group down.
            let result: Result<T, any Error>
            do {
                result = .success(
                    try await withGracefulShutdownHandler {
                        try await cancelWhenGracefulShutdown(work)
                    } onGracefulShutdown: {
                        signalled.withLockedValue { $0 = true }
                    }
                )
            } catch {
                result = .failure(error)
            }
            outcome.withLockedValue { $0 = result }
        }
        var logger = Logger(label: "huddle")
        logger.logLevel = .critical
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) }
                    + [.init(service: worker, successTerminationBehavior: .gracefullyShutdownGroup)],
                logger: logger
            )
        )
        // SIGINT and SIGTERM shut the group down gracefully, caught by our own handler on any thread
        // (`ShutdownSignals`), not by the group's dispatch signal sources.
        ShutdownSignals.install { Task { await group.triggerGracefulShutdown() } }
        try await group.run()
        if signalled.withLockedValue({ $0 }) { return nil }
        return try outcome.withLockedValue { $0 }?.get()
    }
}
