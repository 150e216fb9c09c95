/// A service running in a task of its own for a test (a foreign protocol's service): the service, its events as
/// they come, the port it listens on, and how to stop it.
public struct RunningService<Service: Sendable, Event: Sendable>: Sendable {
    public let service: Service
    public let events: EventRecorder<Event>
    public let task: Task<Void, any Error>
    public let port: Int

    public init(service: Service, events: EventRecorder<Event>, task: Task<Void, any Error>, port: Int) {
        self.service = service
        self.events = events
        self.task = task
        self.port = port
    }

    /// Cancels the run and waits for it to end.
    public func stop() async {
        task.cancel()
        _ = await task.result
        events.stop()
    }
}
