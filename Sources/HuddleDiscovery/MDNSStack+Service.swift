public import ServiceLifecycle

extension MDNSStack: Service {
    /// Keeps the stack serving in a swift-service-lifecycle group until graceful shutdown or cancellation, then
    /// shuts it down (its registrations say goodbye, RFC 6762 §10.1). The stack is already serving when
    /// ``start(configuration:eventLoop:)`` returns; `run()` only ties its end to the group's.
    public func run() async throws {
        try? await gracefulShutdown()  // returns at graceful shutdown, throws at cancellation: either way, shut down
        await shutdown()
    }
}
