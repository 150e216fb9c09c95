import Huddle
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

/// Unreliable messages between two sessions on a `MemoryNetwork`, whose datagrams go from socket to socket in order
/// and none lost: what arrives can be checked exactly.
@Suite("Unreliable messages between sessions", .timeLimit(.minutes(1)))
struct UnreliableMessageMemoryTests {
    @Test func everySealedDatagramArrivesOnceIntactAndCounted() async throws {
        try await withTestScope { scope in
            let (ada, bob, bobID, adaID) = try await scope.connectedPair(configure: Self.quiet(MemoryNetwork()))
            for index in 0..<200 {
                try await ada.session.send(Array("d\(index)".utf8), to: [bobID], mode: .unreliable)
            }
            #expect(await bob.message(from: adaID, equalTo: "d199"))
            let received = bob.messages(from: adaID).map { String(decoding: $0, as: UTF8.self) }
            #expect(received == (0..<200).map { "d\($0)" })
            let counters = try #require(await bob.session.datagramCounters(for: adaID))
            #expect(counters.delivered == 200)
            #expect(counters.authFailures == 0 && counters.replayDropped == 0 && counters.malformed == 0)
            // Every payload taken from the events was counted into the receive budget too: nothing is owed.
            #expect(bob.session.undeliveredBytes == 0)
            #expect(bob.session.droppedDatagramsOverBudget == 0)
        }
    }

    /// The network's transport, and no PINGs of the session's own: what arrives can be counted exactly. With
    /// `clock`, the session's time is moved by hand: a memory network under load may spread one message's
    /// fragments over more than the 1 s they may take on a real one.
    static func quiet(
        _ network: MemoryNetwork,
        versions: ClosedRange<UInt8>? = nil,
        clock: ManualSessionClock? = nil
    ) -> (inout PeerSessionConfiguration) -> Void {
        {
            network.configure(&$0)
            clock?.configure(&$0)
            $0.linkPingInterval = nil
            if let versions { $0.connection.handshake.versions = versions }
        }
    }

    /// The first message `probe` gets from `peer`, with how it came.
    static func next(at probe: SessionProbe, from peer: PeerID) async -> ([UInt8], PeerDelivery)? {
        await probe.wait { event -> ([UInt8], PeerDelivery)? in
            if case .received(let bytes, peer, let delivery) = event { return (bytes, delivery) }
            return nil
        }
    }

    @Test func eachMessageSaysItsModeAndChannelAndLargeOnesArriveWhole() async throws {
        try await withTestScope { scope in
            let clock = ManualSessionClock()
            let (ada, bob, bobID, adaID) = try await scope.connectedPair(
                configure: Self.quiet(MemoryNetwork(), clock: clock)
            )
            let large = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            try await ada.session.send(large, to: [bobID], mode: .unreliable, channel: 5)
            let first = await Self.next(at: bob, from: adaID)
            #expect(first?.0 == large && first?.1 == PeerDelivery(.unreliable, channel: 5))
            bob.clear()
            try await ada.session.send([1], to: [bobID], mode: .unreliableSequenced, channel: 9)
            #expect(await Self.next(at: bob, from: adaID)?.1 == PeerDelivery(.unreliableSequenced, channel: 9))
            bob.clear()
            try await ada.session.send([2], to: [bobID], mode: .reliableUnordered, channel: 3)
            #expect(await Self.next(at: bob, from: adaID)?.1 == PeerDelivery(.reliableUnordered, channel: 3))
            bob.clear()
            try await ada.session.send([3], to: [bobID], mode: .reliable, channel: 255)
            let reliable = await Self.next(at: bob, from: adaID)
            #expect(reliable?.0 == [3] && reliable?.1 == PeerDelivery(.reliableOrdered, channel: 255))
            await #expect(
                throws: PeerSessionError.connection(.wire(.datagramTooLarge(limit: 65_536, size: 65_537)))
            ) {
                try await ada.session.send(Array(repeating: 0, count: 65_537), to: [bobID], mode: .unreliable)
            }
            // 40,000 bytes went as 34 fragments of at most 1,200; each side's figures count them.
            let sent = try #require(await ada.session.linkStatistics(for: bobID))
            let got = try #require(await bob.session.linkStatistics(for: adaID))
            #expect(sent.protocolVersion == 3 && sent.datagramsSent == 35 && got.datagramsReceived == 35)
            #expect(sent.bytesSent == got.bytesReceived && sent.bytesSent > 40_000)
            #expect(sent.datagramPath == .unconfirmed, "no PING has been answered yet")
            // A PING is answered by the peer's session, never seen by its application.
            bob.clear()
            // The clock stands still: the round trip is 0 exactly (real sockets time one in UnreliableMessageTests).
            let roundTrip = try #require(try await ada.session.ping(bobID, size: 600))
            #expect(roundTrip == .zero)
            let after = try #require(await ada.session.linkStatistics(for: bobID))
            #expect(after.datagramPath == .udp && after.smoothedRoundTrip == roundTrip)
            #expect(after.lossOut == 0 && after.lossBack == 0)
            #expect(after.bytesSent == sent.bytesSent + 600)
            #expect(bob.messages(from: adaID).isEmpty, "the PING was not delivered")
        }
    }

    @Test func aReliablePingIsAnsweredOverTheStreamAndNeverDelivered() async throws {
        try await withTestScope { scope in
            let (ada, bob, bobID, adaID) = try await scope.connectedPair(configure: Self.quiet(MemoryNetwork()))
            try await ada.session.send(Array("before".utf8), to: [bobID])
            let roundTrip = try #require(try await ada.session.ping(bobID, size: 300, reliable: true))
            #expect(roundTrip > .zero && roundTrip < .seconds(10))
            try await ada.session.send(Array("after".utf8), to: [bobID], mode: .reliableUnordered, channel: 7)
            #expect(await bob.message(from: adaID, equalTo: "after"))
            // The PING and its PONG went as numbered messages between the two, and neither reached an app.
            #expect(bob.messages(from: adaID) == [Array("before".utf8), Array("after".utf8)])
            #expect(ada.messages(from: bobID).isEmpty)
            // No datagram carried it: the link's PINGs are off here, and none went.
            let statistics = try #require(await ada.session.linkStatistics(for: bobID))
            #expect(statistics.datagramsSent == 0 && statistics.smoothedRoundTrip == nil)
        }
    }

    @Test func whenUDPStopsGettingThroughUnreliableMessagesGoOnTheStreamUntilAPongComesBack() async throws {
        try await withTestScope { scope in
            let (network, clock) = (MemoryNetwork(), ManualSessionClock())
            let (ada, bob, bobID, adaID) = try await scope.connectedPair(configure: Self.quiet(network, clock: clock))
            network.blockDatagrams(true)
            // Five PINGs a second apart, each lost: the first is 5 s old when the fifth times out.
            for _ in 0..<5 {
                let sleepers = clock.sleeperCount
                let ping = Task { try await ada.session.ping(bobID, timeout: .seconds(1)) }
                #expect(await clock.waitForSleepers(sleepers + 1))
                clock.advance(by: .seconds(1))
                #expect(try await ping.value == nil)
            }
            let fallen = try #require(await ada.session.linkStatistics(for: bobID))
            #expect(fallen.datagramPath == .tls && fallen.datagramsSent == 5)
            try await ada.session.send(Array("state-1".utf8), to: [bobID], mode: .unreliableSequenced, channel: 9)
            let streamed = await Self.next(at: bob, from: adaID)
            #expect(streamed?.0 == Array("state-1".utf8))
            #expect(streamed?.1 == PeerDelivery(.unreliableSequenced, channel: 9))
            let after = try #require(await ada.session.linkStatistics(for: bobID))
            #expect(after.messagesOnStream == 1 && after.datagramsSent == 5, "it went on the stream, not on UDP")

            // UDP gets through again: the next PONG brings the messages back to it.
            network.blockDatagrams(false)
            #expect(try await ada.session.ping(bobID, timeout: .seconds(1)) == .zero)
            bob.clear()
            try await ada.session.send(Array("state-2".utf8), to: [bobID], mode: .unreliableSequenced, channel: 9)
            let back = await Self.next(at: bob, from: adaID)
            #expect(back?.0 == Array("state-2".utf8) && back?.1 == PeerDelivery(.unreliableSequenced, channel: 9))
            let restored = try #require(await ada.session.linkStatistics(for: bobID))
            #expect(restored.datagramPath == .udp)
            #expect(restored.messagesOnStream == 1 && restored.datagramsSent == 7)
        }
    }

    @Test func aPeerOfVersionTwoGetsChannelZerosMessagesAndRefusesTheRestInWords() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            var versions: [ClosedRange<UInt8>] = [2...3, 2...2]
            let (ada, bob, bobID, adaID) = try await scope.connectedPair { configuration in
                Self.quiet(network, versions: versions.removeFirst())(&configuration)
            }
            try await ada.session.send(Array("plain".utf8), to: [bobID], mode: .unreliable)
            let datagram = await Self.next(at: bob, from: adaID)
            #expect(datagram?.0 == Array("plain".utf8) && datagram?.1 == PeerDelivery(.unreliable))
            bob.clear()
            try await ada.session.send(Array("ordered".utf8), to: [bobID])
            let reliable = await Self.next(at: bob, from: adaID)
            #expect(reliable?.0 == Array("ordered".utf8) && reliable?.1 == .reliable)
            for mode in [PeerSendMode.unreliableSequenced, .reliableUnordered] {
                await #expect(throws: PeerSessionError.needsNewerPeer(bobID, version: 2)) {
                    try await ada.session.send([1], to: [bobID], mode: mode)
                }
            }
            await #expect(throws: PeerSessionError.needsNewerPeer(bobID, version: 2)) {
                try await ada.session.send([1], to: [bobID], mode: .reliable, channel: 1)
            }
            await #expect(throws: PeerSessionError.connection(.wire(.datagramTooLarge(limit: 1200, size: 1201)))) {
                try await ada.session.send(Array(repeating: 0, count: 1201), to: [bobID], mode: .unreliable)
            }
            await #expect(throws: PeerSessionError.needsNewerPeer(bobID, version: 2)) {
                _ = try await ada.session.ping(bobID)
            }
            await #expect(throws: PeerSessionError.needsNewerPeer(bobID, version: 2)) {
                _ = try await ada.session.ping(bobID, reliable: true)
            }
            let statistics = try #require(await ada.session.linkStatistics(for: bobID))
            #expect(statistics.protocolVersion == 2 && statistics.datagramPath == .none)
            #expect(statistics.smoothedRoundTrip == nil)
        }
    }
}
