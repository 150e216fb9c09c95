import Huddle
import HuddleTestSupport
import Testing

@Suite("The example at the top of PeerSession's documentation", .timeLimit(.minutes(1)))
struct PeerSessionExampleTests {
    /// The documented event loop, run by both sides at once on first contact: each connects to the other when
    /// found (in a task of its own, as the example does), accepts every request, and says hello once connected.
    /// The example used to await `connect` inside the loop, which stalls: this side's own request is an event of
    /// the same loop, unread until `connect` gives up.
    @Test func theExampleLoopConnectsBothSidesAndDelivers() async throws {
        try await withTestScope { scope in
            let sessions = try await makeUnprobedSessions(["Ada", "Bob"])
            for session in sessions { scope.stop(session) }
            let loops = sessions.map { session in
                Task { () -> String? in
                    for await event in session.events {
                        switch event {
                        case .peerFound(let peer): Task { try await session.connect(to: peer.id) }
                        case .connectionRequest(let request): await session.accept(request)
                        case .stateChanged(let peer, .connected):
                            try await session.send(Array("hello from \(session.displayName)".utf8), to: [peer])
                        case .received(let bytes, _): return String(decoding: bytes, as: UTF8.self)
                        default: break
                        }
                    }
                    return nil
                }
            }
            let ada = try await result(of: loops[0])?.get()
            let bob = try await result(of: loops[1])?.get()
            #expect(ada == "hello from Bob")
            #expect(bob == "hello from Ada")
            #expect(await sessions[0].peers(in: .connected).count == 1)
            #expect(await sessions[1].peers(in: .connected).count == 1)
        }
    }
}
