import Huddle
import HuddleTestSupport
import Logging
import ServiceLifecycle
import Testing

/// `PeerSession` as a swift-service-lifecycle service: graceful shutdown of its group stops it with goodbyes.
@Suite("The session as a service", .tags(.real), .timeLimit(.minutes(1)))
struct SessionServiceTests {
    @Test func gracefulShutdownOfTheGroupSaysGoodbyeToEveryPeer() async throws {
        try await withTestScope { scope in
            let (ada, bob, _, adaID) = try await scope.connectedPair()
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
            let probes = try await scope.sessions(["Ada"])
            let session = probes[0].session
            let running = Task { try await session.run() }
            running.cancel()
            try await running.value
            await #expect(throws: PeerSessionError.stopped) { try await session.setAvailable(true) }
        }
    }
}
