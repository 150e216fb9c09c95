import Huddle
import HuddleTestSupport
import Logging
import ServiceLifecycle
import Testing

/// `PeerSession` as a swift-service-lifecycle service: graceful shutdown of its group stops it with goodbyes (the
/// sessions connected over a `MemoryNetwork`).
@Suite("The session as a service", .timeLimit(.minutes(1)))
struct SessionServiceTests {
    @Test func gracefulShutdownOfTheGroupSaysGoodbyeToEveryPeer() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let (ada, bob, _, adaID) = try await scope.connectedPair(configure: network.configure)
            let group = ServiceGroup(services: [ada.session], logger: Logger(label: "test"))
            let running = Task { try await group.run() }
            bob.clear()
            await group.triggerGracefulShutdown()
            try await running.value
            // A goodbye: Bob sees Ada disconnect, with no error (a dropped connection would bring one).
            let ended = await bob.wait { event -> PeerSessionError?? in
                switch event {
                case .stateChanged(adaID, .disconnected): return .some(nil)
                case .peerError(adaID, let error): return .some(error)
                default: return nil
                }
            }
            #expect(ended == .some(nil))
            await #expect(throws: PeerSessionError.stopped) { try await ada.session.setAvailable(true) }
        }
    }

    @Test func cancellingTheRunStopsTheSessionToo() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let probes = try await scope.sessions(["Ada"], configure: network.configure)
            let session = probes[0].session
            let running = Task { try await session.run() }
            running.cancel()
            try await running.value
            await #expect(throws: PeerSessionError.stopped) { try await session.setAvailable(true) }
        }
    }
}
