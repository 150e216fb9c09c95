public import NIOCore

/// Runs a task's jobs on one NIO event loop, so a task that reads a session's events and answers them runs where the
/// connection's bytes arrive: a message taken from a subscription is handled, and the reply written, on the
/// connection's thread, with no hand-off to the concurrency pool and back (`docs/design.md`, "Running on the
/// event loop").
///
/// ```swift
/// let loop = MultiThreadedEventLoopGroup.singleton.next()
/// configuration.eventLoopGroup = loop  // every connection of the session on this loop
/// try await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
///     for await event in session.events { … }
/// }
/// ```
///
/// Every job is queued on the loop; queued from the loop's own thread (a subscription resumed by an arriving
/// message), it wakes no other thread. Anything the task blocks on blocks the connection's I/O too.
public final class EventLoopTaskExecutor: TaskExecutor {
    public let eventLoop: any EventLoop

    public init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute { job.runSynchronously(on: executor) }
    }
}
