public import ServiceLifecycle

extension PeerSession: Service {
    /// Runs the session as a swift-service-lifecycle service: starts it (unless it was started already), keeps it
    /// up until the service group shuts down gracefully or the task is cancelled, then stops it, so every peer
    /// gets its goodbye.
    ///
    /// ```swift
    /// let group = ServiceGroup(services: [session], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    /// try await group.run()
    /// ```
    /// - Throws: what ``start()`` throws.
    public func run() async throws {
        do {
            try await start()
        } catch {
            await stop()
            throw error
        }
        try? await gracefulShutdown()  // returns at graceful shutdown, throws at cancellation: either way, stop
        await stop()
    }
}
