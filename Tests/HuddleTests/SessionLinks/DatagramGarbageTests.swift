import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Synchronization
import Testing

@testable import Huddle

/// `docs/security.md` §5 C7: random packets to a session's datagram port, with random connection IDs, are dropped
/// on the event loop before any copy or crypto (counted), and a genuine datagram still arrives after them. On a
/// `MemoryNetwork`, where none is lost: every packet sent is counted.
@Suite("Datagram garbage", .timeLimit(.minutes(1)))
struct DatagramGarbageTests {
    @Test func garbageIsDroppedBeforeTheSessionAndGenuineDatagramsStillArrive() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let (ada, bob, bobID, adaID) = try await scope.connectedPair(
                configure: UnreliableMessageMemoryTests.quiet(network)
            )
            try await bob.session.send(Array("ready".utf8), to: [adaID], mode: .unreliable)
            #expect(await ada.message(from: bobID) == "ready")
            let port = bob.session.datagrams.port.load(ordering: .relaxed)
            let count = 5000
            let noise = TransferTests.pattern(count * 1200, seed: 11)
            let packets = (0..<count).map { index in
                Array(noise[index * 1200..<index * 1200 + (index % 4 == 0 ? 20 : 1200)])
            }
            try await network.sendDatagrams(packets, to: port)
            try await ada.session.send(Array("after".utf8), to: [bobID], mode: .unreliable)
            #expect(await bob.message(from: adaID, equalTo: "after"))
            // A random 8-byte connection ID names one of the link's by chance once in 2⁶⁴: every packet is dropped.
            #expect(bob.session.droppedUnroutedDatagrams == UInt64(count))
            // None of it reached the link's opener: no malformed packet, failed tag or unknown ID counted there.
            let counters = try #require(await bob.session.datagramCounters(for: adaID))
            #expect(counters.malformed == 0 && counters.authFailures == 0 && counters.unknownConnectionID == 0)
            #expect(counters.delivered == 1)
        }
    }
}
