import Huddle
import HuddleTestSupport
import Testing

@Suite("The example at the top of PeerSession's documentation", .timeLimit(.minutes(1)))
struct PeerSessionExampleTests {
    /// The documented event loop, run by both sides at once on first contact: the sessions connect to the peers
    /// they find (one side of the pair dials), each accepts every request, and says hello once connected.
    ///
    /// The example used to dial from its own loop on every `peerFound`, so both sides dialled at once; under
    /// load that left the pair unconnected at the end in 3 of 10 unit runs beside four CPU burners (the
    /// simultaneous-dial race, still open). Awaiting `connect` inside the loop stalled outright. In memory: both
    /// sessions run their real TLS pipelines over a ``MemoryNetwork``.
    @Test func theExampleLoopConnectsBothSidesAndDelivers() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let sessions = try await makeUnprobedSessions(["Ada", "Bob"]) {
                $0.connectsToFoundPeers = true
                network.configure(&$0)
            }
            for session in sessions { scope.stop(session) }
            let loops = sessions.map { session in
                Task { () -> String? in
                    for await event in session.events {
                        switch event {
                        case .connectionRequest(let request): await session.accept(request)
                        case .stateChanged(let peer, .connected):
                            try await session.send(Array("hello from \(session.displayName)".utf8), to: [peer])
                        case .received(let bytes, _, _): return String(decoding: bytes, as: UTF8.self)
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
