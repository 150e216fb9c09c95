import Crypto
import Testing

@testable import HuddleWire

/// Direction and session binding, and key epochs (`docs/security.md` §3.7, §5 F6, F7).
@Suite("Datagram keys and epochs")
struct DatagramRekeyTests {
    @Test("F6: a packet under the wrong direction's key, or for another session, is dropped")
    func wrongKeyOrSession() throws {
        let schedule = try DatagramFixture.schedule()
        var responder = DatagramOpener(keys: schedule.keys(for: .responder))
        let payload: [UInt8] = [1, 2, 3]

        var wrongDirection = DatagramSealer(
            key: schedule.responderToInitiatorKey,
            iv: schedule.responderToInitiatorIV,
            destination: schedule.responderConnectionID
        )
        #expect(responder.open(try wrongDirection.seal(payload), now: .zero) == .dropped(.authenticationFailed))
        #expect(responder.counters.authFailures == 1)

        var initiatorOwnDirection = DatagramSealer(keys: schedule.keys(for: .responder))
        #expect(
            responder.open(try initiatorOwnDirection.seal(payload), now: .zero) == .dropped(.unknownConnectionID)
        )

        var otherSecret = DatagramFixture.initiatorSecret
        otherSecret[31] ^= 0x80
        var otherSession = DatagramSealer(
            keys: try DatagramFixture.schedule(initiatorSecret: otherSecret).keys(for: .initiator)
        )
        let foreign = try otherSession.seal(payload)
        #expect(responder.open(foreign, now: .zero) == .dropped(.unknownConnectionID))
        #expect(responder.counters.unknownConnectionID == 2)
        #expect(responder.counters.authFailures == 1)
        #expect(responder.window == ReplayWindow())

        var rightDirection = DatagramSealer(keys: schedule.keys(for: .initiator))
        #expect(responder.open(try rightDirection.seal(payload), now: .zero) == .delivered(payload))
    }

    @Test("F7: the next epoch is accepted; the previous one for 2 s after the switch, then dropped")
    func rekeyGracePeriod() throws {
        let schedule = try DatagramFixture.schedule()
        var sealer = DatagramSealer(keys: schedule.keys(for: .initiator))
        var opener = DatagramOpener(keys: schedule.keys(for: .responder))
        let old = try (0..<4).map { try sealer.seal([0, UInt8($0)]) }
        #expect(sealer.rekey(now: .seconds(10)) == 1)
        #expect(sealer.nextPacketNumber == 0)
        let new = try (0..<2).map { try sealer.seal([1, UInt8($0)]) }
        #expect(new[0][1] == 1)
        #expect(Array(new[0][10..<18]) == Array(old[0][10..<18]))

        #expect(opener.open(old[0], now: .seconds(9)) == .delivered([0, 0]))
        #expect(opener.open(new[0], now: .seconds(10)) == .delivered([1, 0]))
        #expect(opener.epoch == 1)
        #expect(opener.window.highest == 0)
        #expect(opener.previousEpoch?.number == 0)
        #expect(opener.open(old[1], now: .seconds(11)) == .delivered([0, 1]))
        #expect(opener.open(old[1], now: .seconds(11)) == .dropped(.duplicate))
        #expect(opener.open(old[2], now: .seconds(12)) == .delivered([0, 2]))
        #expect(opener.open(old[3], now: .seconds(12) + .nanoseconds(1)) == .dropped(.expiredEpoch))
        #expect(opener.previousEpoch == nil)
        #expect(opener.open(new[1], now: .seconds(13)) == .delivered([1, 1]))
        #expect(opener.open(new[0], now: .seconds(13)) == .dropped(.duplicate))
        #expect(opener.counters.unknownEpoch == 1)
        #expect(opener.rekey(to: 1, now: .seconds(13)) == false)
    }

    @Test("F7: a rekey signalled on the control channel starts the grace period")
    func signalledRekey() throws {
        let schedule = try DatagramFixture.schedule()
        var sealer = DatagramSealer(keys: schedule.keys(for: .initiator))
        var opener = DatagramOpener(keys: schedule.keys(for: .responder))
        let old = try (0..<3).map { try sealer.seal([0, UInt8($0)]) }
        sealer.rekey(now: .seconds(5))
        let new = try sealer.seal([1, 0])

        #expect(opener.rekey(to: 2, now: .seconds(5)) == false)
        #expect(opener.rekey(to: 1, now: .seconds(5)) == true)
        #expect(opener.rekey(to: 1, now: .seconds(5)) == false)
        #expect(opener.epoch == 1)
        #expect(opener.open(old[0], now: .seconds(6)) == .delivered([0, 0]))
        #expect(opener.open(old[1], now: .seconds(7)) == .delivered([0, 1]))
        #expect(opener.open(old[2], now: .seconds(8)) == .dropped(.expiredEpoch))
        #expect(opener.open(new, now: .seconds(8)) == .delivered([1, 0]))

        var epoch5 = old[0]
        epoch5[1] = 5
        #expect(opener.open(epoch5, now: .seconds(8)) == .dropped(.unknownEpoch))
        #expect(opener.counters.unknownEpoch == 2)
    }

    @Test("Consecutive epochs follow each other, and the epoch byte wraps after 255")
    func consecutiveEpochs() throws {
        let schedule = try DatagramFixture.schedule()
        var sealer = DatagramSealer(keys: schedule.keys(for: .initiator))
        var opener = DatagramOpener(keys: schedule.keys(for: .responder))
        let epoch0 = try sealer.seal([0])
        sealer.rekey(now: .seconds(1))
        let epoch1 = try sealer.seal([1])
        sealer.rekey(now: .seconds(1))
        let epoch2 = try sealer.seal([2])
        #expect([epoch0[1], epoch1[1], epoch2[1]] == [0, 1, 2])

        #expect(opener.open(epoch2, now: .seconds(1)) == .dropped(.unknownEpoch))
        #expect(opener.open(epoch1, now: .seconds(1)) == .delivered([1]))
        #expect(opener.open(epoch2, now: .seconds(1)) == .delivered([2]))
        #expect(opener.epoch == 2)
        #expect(opener.previousEpoch?.number == 1)
        #expect(opener.open(epoch0, now: .seconds(1)) == .dropped(.unknownEpoch))

        for _ in 0..<254 { sealer.rekey(now: .seconds(2)) }
        #expect(sealer.epoch == 0)
        let wrapped = try sealer.seal([0])
        #expect(Array(wrapped[0..<18]) == Array(epoch0[0..<18]))
        #expect(wrapped != epoch0)
    }

    @Test("Rekey is due at 2^32 packets or 120 s, whichever comes first")
    func rekeyPolicy() throws {
        let policy = DatagramRekeyPolicy()
        #expect(policy.packetLimit == 4_294_967_296)
        #expect(policy.maximumEpochAge == .seconds(120))
        #expect(!policy.isRekeyDue(packetsInEpoch: (1 << 32) - 1, epochAge: .seconds(119)))
        #expect(policy.isRekeyDue(packetsInEpoch: 1 << 32, epochAge: .zero))
        #expect(policy.isRekeyDue(packetsInEpoch: 0, epochAge: .seconds(120)))

        var sealer = DatagramSealer(keys: try DatagramFixture.schedule().keys(for: .initiator), now: .seconds(100))
        let small = DatagramRekeyPolicy(packetLimit: 2, maximumEpochAge: .seconds(120))
        #expect(!sealer.isRekeyDue(now: .seconds(219)))
        #expect(sealer.isRekeyDue(now: .seconds(220)))
        _ = try sealer.seal([])
        #expect(!sealer.isRekeyDue(now: .seconds(101), policy: small))
        _ = try sealer.seal([])
        #expect(sealer.isRekeyDue(now: .seconds(101), policy: small))
        sealer.rekey(now: .seconds(101))
        #expect(!sealer.isRekeyDue(now: .seconds(101), policy: small))
        #expect(sealer.epochStart == .seconds(101))
    }
}
