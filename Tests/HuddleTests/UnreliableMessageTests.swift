import Huddle
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import NIOPosix
import Testing

/// The wiring proof of datagrams: real UDP sockets on loopback, where a datagram may be lost. The rest runs on a
/// `MemoryNetwork` (`UnreliableMessageMemoryTests`).
@Suite("Unreliable messages on loopback", .tags(.real), .timeLimit(.minutes(2)))
struct UnreliableMessageTests {
    /// Also the datagram port (`docs/wire-protocol.md` §8, "The datagram port"): Bob's has his TCP port's number;
    /// Ada is given a number another program holds for UDP, so her datagrams take a free port, and the one her HELLO
    /// names is the one she has.
    @Test func sealedDatagramsArriveOnceAndIntact() async throws {
        let holder = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        defer { holder.close(promise: nil) }
        let taken = try #require(holder.localAddress?.port)
        try await withTestScope { scope in
            var given = [taken, 0]
            let (ada, bob, bobID, adaID) = try await scope.connectedPair {
                $0.listenPort = given.removeFirst()
                $0.linkPingInterval = nil  // only the test's datagrams, to count them
            }
            #expect(await ada.session.listeningPort == taken)
            let (adaUDP, bobUDP) = (ada.session.datagramPort, bob.session.datagramPort)
            #expect(adaUDP != nil && adaUDP != taken)
            let bobTCP = await bob.session.listeningPort
            #expect(bobUDP != nil && bobUDP == bobTCP)
            // Both sides have their datagram keys once the pair is connected. One datagram each way first, sent
            // again until one arrives: a datagram may be lost (one "ready" was, in 1 of 20 unit runs beside four
            // CPU burners), and the test is about what arrives, not about the first one.
            #expect(try await Self.oneArrives(from: bob, to: adaID, at: ada, from: bobID))
            for index in 0..<200 {
                try await ada.session.send(Array("d\(index)".utf8), to: [bobID], mode: .unreliable)
            }
            // Up to 15 s: a loaded machine can hold the events back for seconds (the datagrams may still be lost).
            _ = await bob.wait(seconds: 15) { event -> Bool? in
                if case .received(let bytes, adaID, _) = event, bytes == Array("d199".utf8) { return true }
                return nil
            }
            let received = bob.messages(from: adaID).map { String(decoding: $0, as: UTF8.self) }
            // Loopback may drop under load, but never duplicates or corrupts.
            #expect(Set(received).count == received.count)
            #expect(
                received.allSatisfy { $0.hasPrefix("d") && Int($0.dropFirst()).map { (0..<200).contains($0) } == true }
            )
            #expect(received.count >= 150)
            let counters = try #require(await bob.session.datagramCounters(for: adaID))
            #expect(counters.delivered == UInt64(received.count))
            #expect(counters.authFailures == 0 && counters.replayDropped == 0)
            // Every payload taken from the events was counted into the receive budget too: nothing is owed, and
            // the budget never went negative (it used to, by every datagram byte).
            #expect(bob.session.undeliveredBytes == 0)
            #expect(bob.session.droppedDatagramsOverBudget == 0)
            try await Self.versionThreeOverUDP(from: ada, to: bobID, at: bob, from: adaID)
        }
    }

    /// Protocol version 3 on real UDP: a 20,000-byte message on channel 6, in 17 fragments, arrives whole and
    /// says how it came, and a PING is answered (each sent again, up to 10 times, as a datagram may be lost).
    static func versionThreeOverUDP(
        from ada: SessionProbe,
        to bobID: PeerID,
        at bob: SessionProbe,
        from adaID: PeerID
    ) async throws {
        let large = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var whole: PeerDelivery?
        for _ in 0..<10 where whole == nil {
            try await ada.session.send(large, to: [bobID], mode: .unreliable, channel: 6)
            whole = await bob.wait(seconds: 1) { event -> PeerDelivery? in
                if case .received(let bytes, adaID, let delivery) = event, bytes == large { return delivery }
                return nil
            }
        }
        #expect(whole == PeerDelivery(.unreliable, channel: 6))
        var roundTrip: Duration?
        for _ in 0..<10 where roundTrip == nil {
            roundTrip = try await ada.session.ping(bobID, size: 1200, timeout: .seconds(1))
        }
        #expect(roundTrip.map { $0 > .zero && $0 < .seconds(1) } == true)
        // A PING over the TLS stream, answered by Bob's session: never lost, so one is enough.
        let reliable = try await ada.session.ping(bobID, size: 1200, timeout: .seconds(10), reliable: true)
        #expect(reliable.map { $0 > .zero && $0 < .seconds(10) } == true)
        let statistics = try #require(await ada.session.linkStatistics(for: bobID))
        #expect(statistics.protocolVersion == 3 && statistics.datagramPath == .udp)
        #expect(statistics.smoothedRoundTrip != nil && statistics.datagramsSent >= 200 + 17 + 1)
    }

    /// Sends `ready-1`, `ready-2`, … from `sender` until `receiver` has one (at most 30, each awaited for up to a
    /// second); whether one arrived.
    static func oneArrives(
        from sender: SessionProbe,
        to peer: PeerID,
        at receiver: SessionProbe,
        from senderID: PeerID
    ) async throws -> Bool {
        for attempt in 1...30 {
            try await sender.session.send(Array("ready-\(attempt)".utf8), to: [peer], mode: .unreliable)
            let arrived = await receiver.wait(seconds: 1) { event -> Bool? in
                if case .received(let bytes, senderID, _) = event, bytes.starts(with: Array("ready-".utf8)) {
                    return true
                }
                return nil
            }
            if arrived == true { return true }
        }
        return false
    }
}
