import HuddleWire
import Testing

/// The pure rules of the real-time layer (`docs/realtime.md`): sequenced delivery per channel with 16-bit
/// wrap-around, and large unreliable messages rebuilt from fragments, all or nothing, in bounded memory.
@Suite("Real-time rules: sequenced delivery and fragment reassembly")
struct RealtimeRulesTests {
    @Test func aStaleUpdateIsDroppedPerChannelAcrossTheWrap() {
        var delivery = SequencedDelivery()
        func admit(_ sequence: UInt16, on channel: UInt8) -> Bool { delivery.admit(sequence, on: channel) }
        #expect(admit(10, on: 0))
        #expect(!admit(9, on: 0))  // older than the newest delivered
        #expect(!admit(10, on: 0))  // the same one again
        #expect(admit(9, on: 1))  // another channel has its own order
        #expect(admit(65_535, on: 2))
        #expect(admit(2, on: 2))  // past the wrap: newer
        #expect(!admit(65_534, on: 2))
        #expect(delivery.newest == [0: 10, 1: 9, 2: 2])
        // Exactly half the space away is neither newer nor older (RFC 1982 §3.2): refused.
        #expect(!SequencedDelivery.isNewer(0x8000, than: 0))
        #expect(SequencedDelivery.isNewer(0x7FFF, than: 0))
        #expect(!SequencedDelivery.isNewer(0, than: 0x7FFF))
    }

    static func fragments(of bytes: [UInt8], message: UInt32, size: Int) -> [FragmentReassembly.Fragment] {
        let pieces = stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
        return pieces.enumerated().map {
            .init(message: message, index: UInt16($0.offset), count: UInt16(pieces.count), bytes: $0.element)
        }
    }

    @Test func aMessageIsRebuiltInAnyOrderOnceAndWhole() {
        var reassembly = FragmentReassembly()
        func add(_ fragment: FragmentReassembly.Fragment, now: Duration) -> FragmentReassembly.Outcome {
            reassembly.add(fragment, now: now)
        }
        let message = (0..<5000).map { UInt8($0 % 251) }
        let pieces = Self.fragments(of: message, message: 7, size: 1200)
        #expect(pieces.count == 5)
        for piece in [pieces[3], pieces[0], pieces[4], pieces[1]] {
            #expect(add(piece, now: .zero) == .pending)
        }
        #expect(add(pieces[0], now: .zero) == .dropped(.duplicate))
        #expect(reassembly.pendingBytes == 3 * 1200 + 200)  // the last piece is the 200 bytes left
        #expect(add(pieces[2], now: .zero) == .complete(message))
        #expect(reassembly.pendingMessages == 0 && reassembly.pendingBytes == 0)
        // A one-fragment message needs no waiting.
        #expect(add(.init(message: 8, index: 0, count: 1, bytes: [1, 2]), now: .zero) == .complete([1, 2]))
    }

    @Test func malformedFragmentsAndOversizedMessagesAreDroppedWithWhatCameOfThem() {
        var reassembly = FragmentReassembly()
        func add(_ fragment: FragmentReassembly.Fragment, now: Duration) -> FragmentReassembly.Outcome {
            reassembly.add(fragment, now: now)
        }
        #expect(add(.init(message: 1, index: 2, count: 2, bytes: [0]), now: .zero) == .dropped(.malformed))
        #expect(add(.init(message: 1, index: 0, count: 0, bytes: [0]), now: .zero) == .dropped(.malformed))
        #expect(add(.init(message: 1, index: 0, count: 65, bytes: [0]), now: .zero) == .dropped(.malformed))
        #expect(add(.init(message: 2, index: 0, count: 3, bytes: [0]), now: .zero) == .pending)
        // Another count for the same message: the message is dropped, not mixed.
        #expect(add(.init(message: 2, index: 1, count: 4, bytes: [0]), now: .zero) == .dropped(.malformed))
        #expect(reassembly.pendingMessages == 0)
        let big = [UInt8](repeating: 1, count: 40 * 1024)
        #expect(add(.init(message: 3, index: 0, count: 2, bytes: big), now: .zero) == .pending)
        #expect(add(.init(message: 3, index: 1, count: 2, bytes: big), now: .zero) == .dropped(.tooLarge))
        #expect(reassembly.pendingBytes == 0)
    }

    @Test func aMessageThatWaitsTooLongIsAbandonedOnTheClockGiven() {
        var reassembly = FragmentReassembly()
        func add(_ fragment: FragmentReassembly.Fragment, now: Duration) -> FragmentReassembly.Outcome {
            reassembly.add(fragment, now: now)
        }
        #expect(add(.init(message: 1, index: 0, count: 2, bytes: [1]), now: .zero) == .pending)
        #expect(add(.init(message: 2, index: 0, count: 2, bytes: [2]), now: .milliseconds(900)) == .pending)
        reassembly.expire(now: .milliseconds(1001))
        #expect(reassembly.pendingMessages == 1 && reassembly.abandoned == 1)
        // Message 1's last fragment comes late: it starts a new wait, and never completes the abandoned message.
        #expect(add(.init(message: 1, index: 1, count: 2, bytes: [1]), now: .milliseconds(1002)) == .pending)
        #expect(add(.init(message: 2, index: 1, count: 2, bytes: [3]), now: .milliseconds(1500)) == .complete([2, 3]))
    }

    @Test func aFloodOfFirstFragmentsStaysWithinTheBoundsAndDropsTheOldest() {
        var limits = FragmentReassembly.Limits()
        limits.maximumPendingMessages = 4
        limits.maximumPendingBytes = 10_000
        var reassembly = FragmentReassembly(limits: limits)
        func add(_ fragment: FragmentReassembly.Fragment, now: Duration) -> FragmentReassembly.Outcome {
            reassembly.add(fragment, now: now)
        }
        for message in UInt32(0)..<1000 {
            let outcome = add(
                .init(message: message, index: 0, count: 64, bytes: [UInt8](repeating: 0, count: 1200)),
                now: .milliseconds(Int64(message))
            )
            #expect(outcome == .pending)
            #expect(reassembly.pendingMessages <= 4 && reassembly.pendingBytes <= 10_000)
        }
        #expect(reassembly.pendingMessages == 4)
        #expect(reassembly.abandoned == 996)
        // The newest ones are those still waiting: the next fragment of message 999 is kept with it.
        #expect(
            add(.init(message: 999, index: 1, count: 64, bytes: [1]), now: .milliseconds(999)) == .pending
        )
        #expect(reassembly.pendingBytes == 4 * 1200 + 1)
    }

    @Test func eachKindOfPayloadReadsBackAsItWasWrittenByteForByte() throws {
        let plain = RealtimeDatagram.message(.init(channel: 3, sequenced: false, sequence: 0x0102, bytes: [9, 8]))
        #expect(plain.encoded == [0x00, 3, 0x00, 0x01, 0x02, 9, 8])
        let piece = RealtimeDatagram.message(
            .init(
                channel: 15,
                sequenced: true,
                sequence: 65_535,
                fragment: .init(message: 0x0A0B_0C0D, index: 2, count: 5),
                bytes: [7]
            )
        )
        #expect(piece.encoded == [0x00, 15, 0x03, 0xFF, 0xFF, 0x0A, 0x0B, 0x0C, 0x0D, 0, 2, 0, 5, 7])
        let ping = RealtimeDatagram.ping(id: 1, sent: 0x0102_0304_0506_0708, padding: 3)
        #expect(ping.encoded == [0x01, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0])
        let pong = RealtimeDatagram.pong(id: 1, sent: 5, pingsReceived: 0x0100, padding: 0)
        #expect(pong.encoded == [0x02, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 1, 0])
        for payload in [plain, piece, ping, pong] {
            #expect(RealtimeDatagram(parsing: payload.encoded) == payload)
        }
        #expect(RealtimeDatagram.messageHeaderByteCount(fragment: true) == piece.encoded.count - 1)
    }

    @Test func payloadsOfNoKindOrCutShortAreRefused() {
        for bad: [UInt8] in [
            [], [0x03], [0x00, 1, 0, 0],  // no kind; an unknown kind; a MESSAGE without its sequence
            [0x00, 1, 0x04, 0, 0],  // a flag that is not defined
            [0x00, 1, 0x02, 0, 0, 0, 0, 0, 1, 0, 5, 0, 5],  // a fragment at its count
            [0x00, 1, 0x02, 0, 0, 0, 0, 0, 1, 0, 0],  // a fragment cut short
            [0x01, 0, 0, 0, 1, 0, 0, 0],  // a PING cut short
            [0x02, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0],  // a PONG without the whole count
        ] {
            #expect(RealtimeDatagram(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func theRoundTripIsSmoothedAsTCPDoes() {
        var estimate = RoundTripEstimate()
        #expect(estimate.smoothed == nil)
        estimate.add(.milliseconds(80))
        #expect(estimate.smoothed == .milliseconds(80) && estimate.variation == .milliseconds(40))
        estimate.add(.milliseconds(160))
        // RTTVAR = 3/4·40 + 1/4·|80 − 160| = 50; SRTT = 7/8·80 + 1/8·160 = 90 (RFC 6298 §2.3).
        #expect(estimate.variation == .milliseconds(50))
        #expect(estimate.smoothed == .milliseconds(90))
        #expect(estimate.latest == .milliseconds(160) && estimate.samples == 2)
    }

    @Test func aPingRunCountsLossPercentilesAndJitter() {
        var tally = PingTally()
        func replied(_ id: UInt32, after roundTrip: Duration) -> Bool { tally.replied(id, after: roundTrip) }
        #expect(tally.loss == 0 && tally.percentile(0.5) == nil)
        for id in UInt32(0)..<10 { tally.sent(id) }
        for (id, ms) in [(0, 10), (1, 26), (2, 10), (4, 30), (5, 12), (6, 11), (8, 14)] as [(UInt32, Int64)] {
            #expect(replied(id, after: .milliseconds(ms)))
        }
        #expect(!replied(4, after: .milliseconds(1)))  // a second reply to one ping
        #expect(!replied(42, after: .milliseconds(1)))  // a reply to no ping
        #expect(tally.sent == 10 && tally.received == 7)
        #expect(tally.loss == 0.3)
        #expect(tally.percentile(0.5) == .milliseconds(12))
        #expect(tally.percentile(0.99) == .milliseconds(30))
        // J over |D| = 16, 16, 20, 18, 1, 3: 1, then 1 + (16 − 1)/16, and so on.
        var expected = Duration.zero
        for difference in [16, 16, 20, 18, 1, 3] as [Int64] {
            expected += (.milliseconds(difference) - expected) / 16
        }
        #expect(tally.jitter == expected)
        #expect(tally.jitter > .microseconds(3_700) && tally.jitter < .microseconds(3_800))  // about 3.76 ms
    }
}
