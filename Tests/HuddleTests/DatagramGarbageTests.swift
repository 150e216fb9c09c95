import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import Huddle

/// `docs/security.md` §5 C7: random packets to a session's datagram port, with random connection IDs, are dropped
/// on the event loop before any copy or crypto (counted), and a genuine datagram still arrives after them.
@Suite("Datagram garbage", .tags(.real), .timeLimit(.minutes(2)))
struct DatagramGarbageTests {
    /// Whether an unreliable message with `text` from `sender` reaches `receiver`; sent again every 100 ms, as
    /// loopback UDP may drop one under load.
    static func arrives(_ text: String, from sender: SessionProbe, at receiver: SessionProbe) async -> Bool {
        let (to, from) = (receiver.session.peerID, sender.session.peerID)
        let sending = Task {
            while !Task.isCancelled {
                try await sender.session.send(Array(text.utf8), to: [to], mode: .unreliable)
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        defer { sending.cancel() }
        return await receiver.wait { event -> Bool? in
            if case .received(let bytes, from) = event, bytes == Array(text.utf8) { return true }
            return nil
        } ?? false
    }

    @Test func garbageIsDroppedBeforeTheSessionAndGenuineDatagramsStillArrive() async throws {
        try await withTestScope { scope in
            let (ada, bob, bobID, adaID) = try await scope.connectedPair()
            try await bob.session.send(Array("ready".utf8), to: [adaID], mode: .unreliable)
            #expect(await ada.message(from: bobID) == "ready")
            let port = bob.session.datagrams.port.load(ordering: .relaxed)
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            scope.onExit { try? await group.shutdownGracefully() }
            let client = try await DatagramBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
            scope.onExit { try? await client.close() }
            let target = try SocketAddress(ipAddress: "127.0.0.1", port: port)
            let count = 5000
            // The garbage goes in batches of 50 (under 60 KB, well within a socket's receive buffer), each followed
            // by a genuine datagram from Ada. A batch is in Bob's socket queue once its last write was flushed and
            // awaited, ahead of what Ada sends next: once hers arrives, Bob has handled the whole batch. So a
            // loaded machine that reads slowly is not flooded past what its socket holds.
            for batch in 0..<(count / 50) {
                for index in (batch * 50)..<(batch * 50 + 50) {
                    let bytes = (0..<(index % 4 == 0 ? 20 : 1200)).map { _ in UInt8.random(in: 0...255) }
                    client.write(
                        AddressedEnvelope(remoteAddress: target, data: client.allocator.buffer(bytes: bytes)),
                        promise: nil
                    )
                }
                try await client.writeAndFlush(
                    AddressedEnvelope(remoteAddress: target, data: client.allocator.buffer(bytes: [0]))
                )
                #expect(await Self.arrives("after \(batch)", from: ada, at: bob), "after batch \(batch)")
            }
            // Loopback UDP may still lose some under load; nearly all must have been seen and dropped.
            #expect(bob.session.droppedUnroutedDatagrams >= UInt64(count * 9 / 10))
            #expect(bob.session.droppedUnroutedDatagrams <= UInt64(count + count / 50))
            // None of it reached the link's opener: no malformed packet, failed tag or unknown ID counted there.
            let counters = try #require(await bob.session.datagramCounters(for: adaID))
            #expect(counters.malformed == 0 && counters.authFailures == 0 && counters.unknownConnectionID == 0)
        }
    }
}
