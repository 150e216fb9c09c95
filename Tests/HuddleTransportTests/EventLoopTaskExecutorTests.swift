import HuddleTestSupport
import HuddleTransport
import NIOCore
import NIOPosix
import Testing

/// A task that prefers an `EventLoopTaskExecutor` runs on that loop: at its start, and again after it was suspended
/// and resumed from the loop (the way a session's subscription is resumed by an arriving message).
@Suite("Event loop task executor", .tags(.real), .timeLimit(.minutes(1)))
struct EventLoopTaskExecutorTests {
    @Test func aTaskPreferringTheExecutorRunsOnItsLoopBeforeAndAfterASuspension() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loop = group.next()
        let other = group.next()
        let seen = await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
            let atStart = loop.inEventLoop
            // Resumed from the other loop's thread: the task still continues on its own loop.
            let value = await withCheckedContinuation { continuation in
                other.execute { continuation.resume(returning: 42) }
            }
            let afterResume = loop.inEventLoop
            // A nonisolated async call made from it runs there too.
            let inCall = await Self.onWhichLoop(loop)
            return (atStart, value, afterResume, inCall)
        }
        #expect(seen.0)
        #expect(seen.1 == 42)
        #expect(seen.2)
        #expect(seen.3)
        #expect(!loop.inEventLoop)
        try await group.shutdownGracefully()
    }

    nonisolated static func onWhichLoop(_ loop: any EventLoop) async -> Bool {
        await Task.yield()
        return loop.inEventLoop
    }
}
