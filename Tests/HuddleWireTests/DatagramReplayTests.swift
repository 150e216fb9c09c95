import Testing

@testable import HuddleWire

/// Replay protection and the receive order (`docs/security.md` §3.7, §5 F3, F4, F5; RFC 6479).
@Suite("Datagram replay window")
struct DatagramReplayTests {
    /// A sealer and an opener for the initiator-to-responder direction, and `count` sealed packets whose payloads
    /// are their packet numbers.
    private static func channel(
        count: Int,
        authenticationFailureLimit: UInt64 = DatagramOpener.defaultAuthenticationFailureLimit
    ) throws -> (opener: DatagramOpener, packets: [[UInt8]]) {
        let schedule = try DatagramFixture.schedule()
        var sealer = DatagramSealer(keys: schedule.keys(for: .initiator))
        let packets = try (0..<count).map { try sealer.seal(Self.payload($0)) }
        let opener = DatagramOpener(
            keys: schedule.keys(for: .responder),
            authenticationFailureLimit: authenticationFailureLimit
        )
        return (opener, packets)
    }

    private static func payload(_ index: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: index >> 8), UInt8(truncatingIfNeeded: index), 0x5A]
    }

    @Test("F3: replaying every packet once delivers each exactly once")
    func replayEveryPacket() throws {
        let count = 3000
        var (opener, packets) = try Self.channel(count: count)
        var delivered: [[UInt8]] = []
        for packet in packets {
            for _ in 0..<2 {
                switch opener.open(packet, now: .zero) {
                case .delivered(let payload): delivered.append(payload)
                case .dropped(let reason): #expect(reason == .duplicate)
                }
            }
        }
        #expect(delivered == (0..<count).map(Self.payload))
        #expect(opener.counters.replayDropped == UInt64(count))
        #expect(opener.counters.delivered == UInt64(count))
        #expect(opener.counters.authFailures == 0)

        packets.reverse()
        let late = packets.prefix(1024).map { opener.open($0, now: .zero) }
        #expect(late == Array(repeating: .dropped(.duplicate), count: 1024))
        #expect(opener.open(packets[1024], now: .zero) == .dropped(.tooOld))
        #expect(opener.counters.replayDropped == UInt64(count + 1025))
        #expect(opener.window.highest == UInt64(count - 1))
    }

    @Test("F4: packets shuffled within 1000 are all delivered once; packets older than the window are dropped")
    func shuffleAndTooOld() throws {
        let count = 5000
        let setup = try Self.channel(count: count)
        var opener = setup.opener
        let packets = setup.packets
        var generator = DatagramTestGenerator(seed: 0x4855_4444_4C45)
        var order: [Int] = []
        for start in stride(from: 0, to: count, by: 1000) {
            order += Array(start..<min(start + 1000, count)).shuffled(using: &generator)
        }
        #expect(order != Array(0..<count))
        var delivered = Set<[UInt8]>()
        for index in order {
            guard case .delivered(let payload) = opener.open(packets[index], now: .zero) else {
                Issue.record("packet \(index) was not delivered")
                continue
            }
            #expect(payload == Self.payload(index))
            delivered.insert(payload)
        }
        #expect(delivered.count == count)
        #expect(opener.counters.replayDropped == 0)

        let second = try Self.channel(count: 3000)
        var fresh = second.opener
        let more = second.packets
        let withheld: Set<Int> = [0, 1, 2, 1974, 1975, 1976]
        for (index, packet) in more.enumerated() where !withheld.contains(index) {
            #expect(fresh.open(packet, now: .zero) == .delivered(Self.payload(index)))
        }
        #expect(fresh.window.highest == 2999)
        #expect(fresh.open(more[0], now: .zero) == .dropped(.tooOld))
        #expect(fresh.open(more[2], now: .zero) == .dropped(.tooOld))
        #expect(fresh.open(more[1974], now: .zero) == .dropped(.tooOld))
        #expect(fresh.open(more[1975], now: .zero) == .dropped(.tooOld))
        #expect(fresh.open(more[1976], now: .zero) == .delivered(Self.payload(1976)))
        #expect(fresh.open(more[1976], now: .zero) == .dropped(.duplicate))
        #expect(fresh.counters.replayDropped == 5)
    }

    @Test("F5: a bit flip anywhere in header, ciphertext or tag is dropped and leaves the window alone")
    func bitFlips() throws {
        let setup = try Self.channel(count: 6)
        var opener = setup.opener
        let packets = setup.packets
        for index in 0..<5 {
            #expect(opener.open(packets[index], now: .zero) == .delivered(Self.payload(index)))
        }
        let windowBefore = opener.window
        let countersBefore = opener.counters
        let target = packets[5]
        var reasons: [DatagramDropReason: Int] = [:]
        for bit in 0..<(target.count * 8) {
            var flipped = target
            flipped[bit / 8] ^= 1 << (bit % 8)
            guard case .dropped(let reason) = opener.open(flipped, now: .zero) else {
                Issue.record("flipping bit \(bit) was delivered")
                continue
            }
            reasons[reason, default: 0] += 1
        }
        #expect(opener.window == windowBefore)
        #expect(opener.counters.delivered == countersBefore.delivered)
        #expect(reasons[.unsupportedVersion] == 8)
        #expect(reasons[.unknownEpoch] == 7)
        #expect(reasons[.unknownConnectionID] == 64)
        // pn 5 = 0b101: flipping bit 0 gives 4 and bit 2 gives 1, both already delivered.
        #expect(reasons[.duplicate] == 2)
        #expect(reasons[.authenticationFailed] == target.count * 8 - 8 - 7 - 64 - 2)

        var forged = target
        forged.replaceSubrange(10..<18, with: DatagramConnectionID(rawValue: 1 << 40).bytes)
        #expect(opener.open(forged, now: .zero) == .dropped(.authenticationFailed))
        #expect(opener.window == windowBefore)
        #expect(opener.window.highest == 4)
        #expect(opener.window.check(1 << 40) == .fresh)
        #expect(opener.open(target, now: .zero) == .delivered(Self.payload(5)))
        #expect(opener.window.highest == 5)
    }

    @Test("Short packets and unknown versions are malformed; a 34-byte packet is the smallest valid one")
    func malformed() throws {
        let schedule = try DatagramFixture.schedule()
        var sealer = DatagramSealer(keys: schedule.keys(for: .initiator))
        var opener = DatagramOpener(keys: schedule.keys(for: .responder))
        let empty = try sealer.seal([])
        #expect(empty.count == 34)
        #expect(opener.open(Array(empty.dropLast()), now: .zero) == .dropped(.malformed))
        #expect(opener.open([], now: .zero) == .dropped(.malformed))
        var version2 = empty
        version2[0] = 2
        #expect(opener.open(version2, now: .zero) == .dropped(.unsupportedVersion))
        #expect(opener.counters.malformed == 3)
        #expect(opener.open(empty, now: .zero) == .delivered([]))
    }

    @Test("After the authentication-failure limit the opener recommends closing and drops everything")
    func authenticationFailureLimit() throws {
        let setup = try Self.channel(count: 2, authenticationFailureLimit: 3)
        var opener = setup.opener
        let packets = setup.packets
        var forged = packets[0]
        forged[forged.count - 1] ^= 0xFF
        for _ in 0..<3 {
            #expect(!opener.isCloseRecommended)
            #expect(opener.open(forged, now: .zero) == .dropped(.authenticationFailed))
        }
        #expect(opener.isCloseRecommended)
        #expect(opener.open(packets[1], now: .zero) == .dropped(.failureLimitReached))
        #expect(opener.counters.authFailures == 4)
        #expect(opener.counters.delivered == 0)
        #expect(DatagramOpener.defaultAuthenticationFailureLimit == 1_048_576)
    }

    @Test("ReplayWindow: check does not mark, mark slides by whole blocks, 1024 numbers are remembered")
    func replayWindowUnit() {
        var window = ReplayWindow()
        #expect(window.highest == nil)
        #expect(window.check(0) == .fresh)
        #expect(window.check(1 << 40) == .fresh)
        #expect(window == ReplayWindow())

        window.mark(0)
        #expect(window.check(0) == .duplicate)
        window.mark(1023)
        #expect(window.highest == 1023)
        #expect(window.check(0) == .duplicate)
        window.mark(1024)
        #expect(window.check(0) == .tooOld)
        #expect(window.check(1) == .fresh)
        #expect(window.check(1023) == .duplicate)

        for packetNumber in UInt64(1025)..<1100 { window.mark(packetNumber) }
        window.mark(100_000)
        #expect(window.highest == 100_000)
        #expect(window.check(1099) == .tooOld)
        for packetNumber in UInt64(100_000 - 1023)..<100_000 {
            #expect(window.check(packetNumber) == .fresh)
        }
        #expect(window.check(100_000 - 1024) == .tooOld)

        let before = window
        window.mark(100_000 - 2000)
        #expect(window == before)
    }
}
