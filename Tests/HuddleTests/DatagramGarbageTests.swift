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
@Suite("Datagram garbage")
struct DatagramGarbageTests {
    @Test func garbageIsDroppedBeforeTheSessionAndGenuineDatagramsStillArrive() async throws {
        let (ada, bob, bobID, adaID) = try await connectedPair()
        try await bob.session.send(Array("ready".utf8), to: [adaID], mode: .unreliable)
        #expect(await ada.message(from: bobID) == "ready")
        let port = bob.session.datagramPort.load(ordering: .relaxed)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let client = try await DatagramBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        let count = 5000
        for index in 0..<count {
            let bytes = (0..<(index % 4 == 0 ? 20 : 1200)).map { _ in UInt8.random(in: 0...255) }
            client.write(
                AddressedEnvelope(remoteAddress: target, data: client.allocator.buffer(bytes: bytes)),
                promise: nil
            )
            if index % 50 == 49 {
                try await client.writeAndFlush(
                    AddressedEnvelope(remoteAddress: target, data: client.allocator.buffer(bytes: [0]))
                )
            }
        }
        client.flush()
        // Loopback UDP may lose some under load; nearly all must have been seen and dropped.
        let deadline = ContinuousClock.now + .seconds(30)
        while bob.session.droppedUnroutedDatagrams < UInt64(count * 9 / 10), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(bob.session.droppedUnroutedDatagrams >= UInt64(count * 9 / 10))
        #expect(bob.session.droppedUnroutedDatagrams <= UInt64(count + count / 50))
        // None of it reached the link's opener: no malformed packet, failed tag or unknown ID counted there.
        let counters = try #require(await bob.session.datagramCounters(for: adaID))
        #expect(counters.malformed == 0 && counters.authFailures == 0 && counters.unknownConnectionID == 0)
        var arrived = false
        for attempt in 0..<5 where !arrived {
            try await ada.session.send(Array("after \(attempt)".utf8), to: [bobID], mode: .unreliable)
            arrived =
                await bob.wait(seconds: 2) { event -> Bool? in
                    if case .received(let bytes, adaID) = event,
                        String(decoding: bytes, as: UTF8.self).hasPrefix("after")
                    {
                        return true
                    }
                    return nil
                } ?? false
        }
        #expect(arrived)
        try await client.close()
        try await group.shutdownGracefully()
        await ada.session.stop()
        await bob.session.stop()
    }
}
