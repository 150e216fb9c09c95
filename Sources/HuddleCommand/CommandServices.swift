import ArgumentParser
import HuddleApp
import ServiceLifecycle

/// Every command runs its work beside the services it uses in one service group (``ServiceRunner``): a signal
/// cancels the work, then stops the services in reverse order (the session's goodbyes last).
enum CommandServices {
    /// Runs `work` with `services` (in the order they depend on each other: the session first).
    ///
    /// - Returns: what `work` returned, or nil when a signal ended it.
    static func run<T: Sendable>(
        _ services: [any Service],
        _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        try await ServiceRunner.run(services, work)
    }

    /// Runs `work` as ``run(_:_:)`` does, for commands a signal interrupts: then "interrupted" and exit 130.
    static func interruptible<T: Sendable>(
        _ services: [any Service],
        _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        guard let value = try await run(services, work) else {
            Output.error("interrupted")
            throw ExitCode.interrupted
        }
        return value
    }
}
