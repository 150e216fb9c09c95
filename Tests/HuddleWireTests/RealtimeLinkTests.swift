import HuddleWire
import NIOCore
import Testing

/// One link's real-time rules between two `RealtimeLink`s, payloads handed across by hand on a manual clock
/// (`docs/realtime.md`): fragments, sequencing, PINGs and the loss each way.
@Suite("Real-time link: payloads, PINGs and figures")
struct RealtimeLinkTests {
    @Test func aLargeMessageGoesAsFragmentsAndIsRebuiltOnlyWhenWhole() throws {
        var ada = RealtimeLink()
        var bob = RealtimeLink()
        let message = (0..<5000).map { UInt8(truncatingIfNeeded: $0) }
        let payloads = try ada.payloads(of: message, channel: 4, sequenced: false)
        #expect(payloads.count == 5)  // 1,187 bytes each after the 13-byte header
        #expect(payloads.allSatisfy { $0.count <= 1200 })
        func receive(_ payload: [UInt8]) -> RealtimeLink.Incoming { bob.received(payload, now: .milliseconds(5)) }
        for payload in payloads.dropLast() { #expect(receive(payload) == RealtimeLink.Incoming.none) }
        #expect(receive(payloads[4]) == .deliver(message, channel: 4, sequenced: false))
        // A copy of a fragment after the message was delivered starts a new wait, and is never delivered alone.
        #expect(receive(payloads[0]) == RealtimeLink.Incoming.none)
        #expect(bob.reassembly.pendingMessages == 1)
        let small = try ada.payloads(of: [9], channel: 4, sequenced: false)
        #expect(small == [[0x00, 4, 0x00, 0x00, 0x01, 9]])
        #expect(throws: PeerWireError.datagramTooLarge(limit: 65_536, size: 65_537)) {
            _ = try ada.payloads(of: Array(repeating: 0, count: 65_537), channel: 0, sequenced: false)
        }
    }

    @Test func aStaleSequencedUpdateIsDroppedAndCounted() throws {
        var ada = RealtimeLink()
        var bob = RealtimeLink()
        let first = try ada.payloads(of: [1], channel: 2, sequenced: true)
        let second = try ada.payloads(of: [2], channel: 2, sequenced: true)
        let other = try ada.payloads(of: [3], channel: 3, sequenced: true)
        #expect(bob.received(second[0], now: .zero) == .deliver([2], channel: 2, sequenced: true))
        #expect(bob.received(first[0], now: .zero) == RealtimeLink.Incoming.none)
        #expect(bob.received(other[0], now: .zero) == .deliver([3], channel: 3, sequenced: true))
        #expect(bob.counts.staleDropped == 1 && bob.counts.datagramsReceived == 3)
        #expect(bob.received([0x07], now: .zero) == RealtimeLink.Incoming.none)
        #expect(bob.counts.malformed == 1)
    }

    @Test func pingsAreTimedAndTellLossOutFromLossBack() throws {
        var ada = RealtimeLink()
        var bob = RealtimeLink()
        // Ten PINGs: Bob gets 0–7 (two lost on the way out), and Ada gets the PONGs of 0–5 (two lost back).
        var pongs: [[UInt8]] = []
        for index in 0..<10 {
            let (id, payload) = ada.ping(now: .milliseconds(100 * index), size: 40)
            #expect(id == UInt32(index) && payload.count == 40)
            guard index < 8 else { continue }
            guard case .answer(let pong) = bob.received(payload, now: .milliseconds(100 * index + 1)) else {
                Issue.record("PING \(index) was not answered")
                return
            }
            #expect(pong.count == 40, "a PONG is as large as its PING")
            pongs.append(pong)
        }
        for (index, pong) in pongs.prefix(6).enumerated() {
            let incoming = ada.received(pong, now: .milliseconds(100 * index + 30))
            #expect(incoming == .answered(id: UInt32(index), roundTrip: .milliseconds(30)))
        }
        #expect(ada.roundTrip.smoothed == .milliseconds(30) && ada.roundTrip.samples == 6)
        // The latest PONG (of PING 5) says Bob had 6 of the 6 sent up to it: nothing lost out so far; 6 PONGs
        // sent, 6 received.
        #expect(ada.counts.lossOut == 0 && ada.counts.lossBack == 0)
        // Bob's 8th PONG says he had 8 PINGs; Ada sent 8 up to it (0–7) and got 7 of his 8 PONGs.
        #expect(ada.received(pongs[7], now: .milliseconds(800)) == .answered(id: 7, roundTrip: .milliseconds(100)))
        #expect(ada.counts.lossOut == 0)
        #expect(ada.counts.lossBack == 1 - 7.0 / 8.0)
        // A PONG of a PING never sent, or stamped in the future, is refused.
        let forged = RealtimeDatagram.pong(id: 99, sent: 0, pingsReceived: 1, padding: 0).encoded
        #expect(ada.received(forged, now: .seconds(1)) == RealtimeLink.Incoming.none)
        #expect(ada.counts.pongsReceived == 7)
    }

    @Test func lossOutIsTheShareOfPingsThePeerNeverGot() {
        var ada = RealtimeLink()
        var bob = RealtimeLink()
        var last: [UInt8] = []
        for index in 0..<10 {
            let payload = ada.ping(now: .milliseconds(index)).payload
            // Bob gets every other PING.
            if index % 2 == 1, case .answer(let pong) = bob.received(payload, now: .milliseconds(index)) { last = pong }
        }
        _ = ada.received(last, now: .milliseconds(20))
        // The PONG of PING 9: Bob had 5 of 10.
        #expect(ada.counts.lossOut == 0.5)
        #expect(ada.counts.lossBack == 1 - 1.0 / 5.0)
    }

    @Test func aReliableHeaderNamesItsKindAndChannelAndAnUnknownKindIsRefused() {
        let kinds: [(ReliableMessageHeader.Kind, UInt8)] = [
            (.ordered, 0), (.unordered, 1), (.ping, 2), (.pong, 3), (.unreliable, 4), (.unreliableSequenced, 5),
        ]
        for (kind, byte) in kinds {
            let header = ReliableMessageHeader(kind, channel: 200)
            #expect(header.encoded == [byte, 200])
            var buffer = ByteBuffer(bytes: header.encoded + [7, 8])
            #expect(ReliableMessageHeader(readingFrom: &buffer) == header)
            #expect(Array(buffer.readableBytesView) == [7, 8])
        }
        #expect(ReliableMessageHeader(unordered: true, channel: 3) == ReliableMessageHeader(.unordered, channel: 3))
        var unknown = ByteBuffer(bytes: [6, 0, 9])
        #expect(ReliableMessageHeader(readingFrom: &unknown) == nil)
        #expect(unknown.readableBytes == 3, "a refused header leaves the buffer as it was")
        var short = ByteBuffer(bytes: [0])
        #expect(ReliableMessageHeader(readingFrom: &short) == nil)
    }

    @Test func fivePingsInARowUnansweredOverThreeSecondsTurnTheLinkToTheStreamAndAPongTurnsItBack() {
        var choice = DatagramPathChoice()
        #expect(choice.path(now: .zero) == .unconfirmed)
        // Many PINGs close together are not yet a lost path: the first must be 3 s old.
        for tick in 0..<5 { choice.pinged(now: .milliseconds(10 * tick)) }
        #expect(choice.path(now: .milliseconds(2999)) == .unconfirmed)
        #expect(choice.path(now: .milliseconds(3000)) == .tls)
        choice.answered()
        #expect(choice.path(now: .seconds(4)) == .udp)
        // Once UDP worked: four lost in a row stay on UDP, the fifth turns to the stream.
        for second in 5..<9 { choice.pinged(now: .seconds(second)) }
        #expect(choice.path(now: .seconds(20)) == .udp)
        choice.pinged(now: .seconds(9))
        #expect(choice.unanswered == 5)
        #expect(choice.path(now: .seconds(9)) == .tls)
        choice.answered()
        #expect(choice.path(now: .seconds(9)) == .udp && choice.unanswered == 0)
    }

    @Test func theLinkWatchesItsOwnPingsAndPongsForThePath() {
        var ada = RealtimeLink()
        var bob = RealtimeLink()
        for second in 0..<5 { _ = ada.ping(now: .seconds(second)) }  // all lost
        #expect(ada.path.path(now: .seconds(5)) == .tls)
        let (_, payload) = ada.ping(now: .seconds(5))
        guard case .answer(let pong) = bob.received(payload, now: .seconds(5)) else {
            Issue.record("Bob did not answer the PING")
            return
        }
        #expect(
            ada.received(pong, now: .seconds(5) + .milliseconds(2)) == .answered(id: 5, roundTrip: .milliseconds(2))
        )
        #expect(ada.path.path(now: .seconds(6)) == .udp)
        ada.sentOnStream()
        #expect(ada.counts.messagesOnStream == 1)
    }
}
