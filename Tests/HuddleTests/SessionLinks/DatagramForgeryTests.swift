import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Synchronization
import Testing

@testable import Huddle

/// Review F15: anyone who sees a link's connection ID can send forged datagrams under it. Past the forgery limit
/// the link stops taking datagrams; before, the whole TLS session was closed (chat, transfers and clipboard with
/// it) after 2²⁰ forgeries, about ten seconds of traffic.
@Suite("Forged datagrams", .timeLimit(.minutes(2)))
struct DatagramForgeryTests {
    @Test func forgeriesStopTheLinksDatagramsButNotTheSession() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let (ada, bob, bobID, adaID) = try await scope.connectedPair {
                network.configure(&$0)
                $0.datagramAuthenticationFailureLimit = 32
            }
            try await ada.session.send(Array("ready".utf8), to: [bobID], mode: .unreliable)
            #expect(await bob.message(from: adaID) == "ready")
            let cid = try #require(await bob.session.receivingDatagramConnectionID(from: adaID))
            let port = bob.session.datagrams.port.load(ordering: .relaxed)
            let forged = (0..<64).map { number in
                [1, 0] + cid.bytes + DatagramConnectionID(rawValue: UInt64(number)).bytes
                    + (0..<48).map { _ in UInt8.random(in: 0...255) }
            }
            try await network.sendDatagrams(forged, to: port)
            let stopped = try #require(
                await bob.wait { event -> UInt64? in
                    if case .peerError(adaID, let error) = event,
                        case .datagramsStopped(adaID, let forgeries) = error.storage
                    {
                        return forgeries
                    }
                    return nil
                }
            )
            #expect(stopped == 32)
            #expect(await bob.session.receivingDatagramConnectionID(from: adaID) == nil)
            // The session goes on: a reliable message still arrives, and nobody was disconnected.
            try await ada.session.send(Array("still here".utf8), to: [bobID])
            #expect(await bob.message(from: adaID, equalTo: "still here"))
            #expect(await bob.session.peers(in: .connected) == [adaID])
            #expect(!bob.events.contains { if case .stateChanged(_, .disconnected) = $0 { true } else { false } })
        }
    }
}
