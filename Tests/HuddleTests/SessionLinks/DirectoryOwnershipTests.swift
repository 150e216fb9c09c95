import HuddleTestSupport
import Testing

@testable import Huddle

@Suite("A session shuts down only the multicast DNS stack it started", .timeLimit(.minutes(1)))
struct DirectoryOwnershipTests {
    /// `stop()` shuts down the stack the session's presence opened, and nothing else. It used to shut down the
    /// stack of any multicast DNS directory it was given, breaking whoever else used that stack. A real stack needs
    /// a multicast interface, which unit tests may not send on (the interop tests run the command line's own stack
    /// in namespaces), so this checks the ownership the stop path acts on.
    @Test func aDirectoryPassedInIsNotTheSessions() async throws {
        try await withTestScope { scope in
            let probes = try await scope.sessions(["Ada"], configure: MemoryNetwork().configure)
            let session = probes[0].session
            #expect(await session.isAvailable)
            #expect(await session.presence.ownsStack == false)
            await session.stop()
            #expect(await session.isAvailable == false)
            #expect(await session.presence.ownsStack == false)
        }
    }
}
