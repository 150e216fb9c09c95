import Foundation
import HuddleTestSupport
import Testing

@testable import HuddleKDEConnectWire

@Suite struct KDEConnectWireTests {
    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func aPacketIsOneLineThatReadsBackWithItsPayloadAndAnIDGivenAsAString() throws {
        let packet = KDEConnectPacket(
            type: "kdeconnect.share.request",
            body: ["filename": .string("a b.jpg")],
            id: 1_700_000_000_000,
            payloadSize: 882,
            payloadPort: 1739
        )
        let line = packet.line()
        #expect(line.last == 0x0A)
        #expect(line.dropLast().contains(0x0A) == false)
        #expect(try KDEConnectPacket(line: line.dropLast()) == packet)
        let fromString = try KDEConnectPacket(
            line: bytes(#"{"id":"1795731640622","type":"kdeconnect.ping","body":{}}"#)
        )
        #expect(fromString.id == 1_795_731_640_622)
        #expect(fromString.payloadSize == nil && fromString.payloadPort == nil)
    }

    /// Kept as FailCases/FuzzKDEConnectPackets/string-id-beyond-a-double.bin (made by hand while FuzzKDEConnectPackets
    /// was written): an `id` sent as a string beyond what a JSON number holds exactly was read, and the packet's own
    /// line, which writes it as a number, read back as another packet.
    @Test func anIDOrSizeGivenAsAStringIsReadOnlyWhenAJSONNumberHoldsItExactly() throws {
        let exact = try KDEConnectPacket(
            line: bytes(
                #"{"id":"9007199254740992","type":"kdeconnect.ping","body":{},"payloadSize":"9007199254740992"}"#
            )
        )
        #expect(exact.id == 9_007_199_254_740_992 && exact.payloadSize == 9_007_199_254_740_992)
        #expect(try KDEConnectPacket(line: exact.line().dropLast()) == exact)
        let inexact = try KDEConnectPacket(
            line: bytes(
                #"{"id":"9007199254740993","type":"kdeconnect.ping","body":{},"payloadSize":"9007199254740993"}"#
            )
        )
        #expect(inexact.id == 0 && inexact.payloadSize == nil)
        #expect(try KDEConnectPacket(line: inexact.line().dropLast()) == inexact)
        #expect(KDEConnectJSON.string("9223372036854775807").int64 == nil)
        #expect(KDEConnectJSON.string("-1795731640622").int64 == -1_795_731_640_622)
    }

    @Test(arguments: [
        (#"{"id":0,"type":"kdeconnect","body":{}}"#, KDEConnectPacketError.badType),
        (#"{"id":0,"type":"KDEconnect.ping","body":{}}"#, .badType),
        (#"{"id":0,"type":"kdeconnect.ping"}"#, .noBody),
        (#"{"id":0,"type":"kdeconnect.ping","body":[]}"#, .noBody),
        (#"["kdeconnect.ping"]"#, .notJSON),
        (#"{"id":0,"type":"kdeconnect.share.request","body":{},"payloadSize":-5}"#, .badPayload),
    ])
    func linesThatAreNotPacketsAreRefusedWithTheReason(line: String, error: KDEConnectPacketError) {
        #expect(throws: error) { try KDEConnectPacket(line: Array(line.utf8)) }
    }

    @Test func linesAreSplitAtNewlinesAndALineOverTheLimitIsRefused() throws {
        var lines = KDEConnectLines(limit: 8)
        #expect(try lines.feed(bytes("ab\ncd")) == [bytes("ab")])
        #expect(try lines.feed(bytes("e\n\nfg\n")) == [bytes("cde"), bytes("fg")])
        #expect(throws: KDEConnectPacketError.tooLong(limit: 8)) { try lines.feed(bytes("123456789")) }
    }

    /// A link reads line by line: the limit raised after the first line (the identity) holds for the packet that
    /// came in the same read, and the part of a line after the last newline waits for the rest.
    @Test func lineByLineTheLimitCanChangeBetweenLinesOfOneRead() throws {
        var lines = KDEConnectLines(limit: 8)
        let read = bytes("ident\n\n" + String(repeating: "p", count: 20) + "\nhal")
        var rest = read[...]
        var taken: [[UInt8]] = []
        while !rest.isEmpty {
            let next = try lines.firstLine(in: rest)
            rest = rest.dropFirst(next.consumed)
            if let line = next.line {
                taken.append(line)
                lines.limit = 64
            }
        }
        #expect(taken == [bytes("ident"), bytes(String(repeating: "p", count: 20))])
        #expect(try lines.firstLine(in: bytes("f\n")) == (bytes("half"), 2))
        var strict = KDEConnectLines(limit: 8)
        #expect(throws: KDEConnectPacketError.tooLong(limit: 8)) { try strict.firstLine(in: read.dropFirst(7)) }
    }

    func identityPacket(
        id: String = "740bd4b9b4184ee497d6caf1da8151be",
        name: String = "FOSS Phone"
    ) -> KDEConnectPacket {
        KDEConnectIdentity(
            deviceId: id,
            deviceName: name,
            deviceType: "phone",
            protocolVersion: 8,
            incomingCapabilities: ["kdeconnect.ping"],
            outgoingCapabilities: ["kdeconnect.clipboard"],
            tcpPort: 1716
        ).packet
    }

    @Test func anIdentityReadsBackAndItsNameIsCleanedOfForbiddenCharacters() throws {
        let identity = try KDEConnectIdentity(packet: identityPacket(name: "Bob's \"phone\"! (old)\u{7}"))
        #expect(identity.deviceId == "740bd4b9b4184ee497d6caf1da8151be")
        #expect(identity.deviceName == "Bobs phone old")
        #expect(identity.protocolVersion == 8)
        #expect(identity.tcpPort == 1716)
        #expect(identity.incomingCapabilities == ["kdeconnect.ping"])
        let older = try KDEConnectIdentity(packet: identityPacket(id: "_5d1c9b0e_2b1c_4f7a_9e2f_0a1b2c3d4e5f_"))
        #expect(older.deviceId.hasPrefix("_5d1c"))
    }

    @Test func anIdentityWithABadDeviceIDOrNoNameIsRefused() {
        #expect(throws: KDEConnectIdentityError.badDeviceID) {
            try KDEConnectIdentity(packet: identityPacket(id: "short"))
        }
        #expect(throws: KDEConnectIdentityError.badDeviceID) {
            try KDEConnectIdentity(packet: identityPacket(id: String(repeating: "a", count: 31) + "/"))
        }
        #expect(throws: KDEConnectIdentityError.badField("deviceName")) {
            try KDEConnectIdentity(packet: identityPacket(name: "?!."))
        }
    }

    @Test func theVerificationKeyPutsTheLargerKeyFirstAndAddsTheTimestampFromVersion8() {
        // SHA-256 of [2, 2, 1, 1] (and of it followed by "1700000000"), computed apart.
        #expect(KDEConnectVerificationKey.compute([1, 1], [2, 2], timestamp: nil) == "159607cf")
        #expect(KDEConnectVerificationKey.compute([2, 2], [1, 1], timestamp: nil) == "159607cf")
        #expect(KDEConnectVerificationKey.compute([1, 1], [2, 2], timestamp: 1_700_000_000) == "DE60EDF4")
    }
}

@Suite struct KDEConnectPairingTests {
    @Test func ourRequestIsPairedByTheirYesAndLapsesAfterThirtySeconds() {
        var pairing = KDEConnectPairing(paired: false)
        #expect(
            pairing.request(at: .testTime(0), timestamp: 1_700_000_000) == [.send(pair: true, timestamp: 1_700_000_000)]
        )
        #expect(pairing.requestTimestamp == 1_700_000_000)
        #expect(pairing.tick(at: .testTime(29.9)) == [])
        // Their yes pairs nothing until the user here confirms the key.
        #expect(
            pairing.received(pair: true, timestamp: nil, at: .testTime(10)) == [.confirmUser(timestamp: 1_700_000_000)]
        )
        #expect(pairing.state == .confirming(since: .testTime(10), timestamp: 1_700_000_000))
        #expect(pairing.requestTimestamp == 1_700_000_000)
        #expect(pairing.answer(accept: true) == [.paired])
        #expect(pairing.state == .paired)

        var lapsed = KDEConnectPairing(paired: false)
        _ = lapsed.request(at: .testTime(0), timestamp: 1)
        #expect(lapsed.tick(at: .testTime(30)) == [.failed("the device did not answer within 30 s")])
        #expect(lapsed.state == .unpaired)
    }

    @Test func theirRequestWaitsForTheUserAndAYesOrANoIsSent() {
        var pairing = KDEConnectPairing(paired: false)
        #expect(pairing.received(pair: true, timestamp: 42, at: .testTime(0)) == [.askUser(timestamp: 42)])
        #expect(pairing.requestTimestamp == 42)
        #expect(pairing.answer(accept: true) == [.send(pair: true, timestamp: nil), .paired])
        var refused = KDEConnectPairing(paired: false)
        _ = refused.received(pair: true, timestamp: nil, at: .testTime(0))
        #expect(refused.answer(accept: false) == [.send(pair: false, timestamp: nil), .unpaired])
        var unanswered = KDEConnectPairing(paired: false)
        _ = unanswered.received(pair: true, timestamp: nil, at: .testTime(0))
        #expect(unanswered.tick(at: .testTime(31)) == [.failed("the request lapsed unanswered")])
        #expect(unanswered.answer(accept: true) == [])
    }

    /// Found by FuzzKDEConnectPackets (FailCases/FuzzKDEConnectPackets/late-request-kept-pending.bin): a request
    /// lapses 30 s after it was made even when no tick came between, so a late packet of the device's ends it first.
    @Test func aPacketThatComesThirtySecondsAfterARequestEndsItFirst() {
        // The device asks again at 50 s, 50 s after its first request: the first lapsed, the user is asked anew.
        var asked = KDEConnectPairing(paired: false)
        #expect(asked.received(pair: true, timestamp: 100, at: .testTime(0)) == [.askUser(timestamp: 100)])
        #expect(
            asked.received(pair: true, timestamp: 116, at: .testTime(50))
                == [.failed("the request lapsed unanswered"), .askUser(timestamp: 116)]
        )
        #expect(asked.state == .asked(since: .testTime(50), timestamp: 116))
        // Within the 30 s, asking again only restarts the wait.
        #expect(asked.received(pair: true, timestamp: 117, at: .testTime(79)) == [])
        #expect(asked.state == .asked(since: .testTime(79), timestamp: 117))

        // A yes 30 s after our request does not pair: it is a request of the device's, for the user to answer.
        var requested = KDEConnectPairing(paired: false)
        _ = requested.request(at: .testTime(0), timestamp: 1_800_000_000)
        #expect(
            requested.received(pair: true, timestamp: nil, at: .testTime(30))
                == [.failed("the device did not answer within 30 s"), .askUser(timestamp: nil)]
        )
        #expect(requested.state == .asked(since: .testTime(30), timestamp: nil))
        // A late no ends our request as the tick would, and nothing more.
        var refused = KDEConnectPairing(paired: false)
        _ = refused.request(at: .testTime(0), timestamp: 1_800_000_000)
        #expect(
            refused.received(pair: false, timestamp: nil, at: .testTime(31)) == [
                .failed("the device did not answer within 30 s")
            ]
        )
        #expect(refused.state == .unpaired)
    }

    @Test func aKeyNotConfirmedHereUnpairsTheDeviceThatAccepted() {
        var declined = KDEConnectPairing(paired: false)
        _ = declined.request(at: .testTime(0), timestamp: 1_700_000_000)
        _ = declined.received(pair: true, timestamp: nil, at: .testTime(1))
        #expect(
            declined.answer(accept: false)
                == [.send(pair: false, timestamp: nil), .failed("the verification key was not confirmed here")]
        )
        #expect(declined.state == .unpaired)
        var lapsed = KDEConnectPairing(paired: false)
        _ = lapsed.request(at: .testTime(0), timestamp: 1_700_000_000)
        _ = lapsed.received(pair: true, timestamp: nil, at: .testTime(1))
        #expect(lapsed.tick(at: .testTime(30.9)) == [])
        #expect(
            lapsed.tick(at: .testTime(31))
                == [.send(pair: false, timestamp: nil), .failed("the verification key was not confirmed within 30 s")]
        )
        #expect(lapsed.answer(accept: true) == [])
        #expect(lapsed.state == .unpaired)
        // Asking again while the user compares changes nothing; the device's no ends it.
        var withdrawn = KDEConnectPairing(paired: false)
        _ = withdrawn.request(at: .testTime(0), timestamp: 1_700_000_000)
        _ = withdrawn.received(pair: true, timestamp: nil, at: .testTime(1))
        #expect(withdrawn.request(at: .testTime(2), timestamp: 1_700_000_002) == [])
        #expect(
            withdrawn.received(pair: false, timestamp: nil, at: .testTime(3)) == [
                .failed("the device withdrew its yes")
            ]
        )
        #expect(withdrawn.state == .unpaired)
    }

    @Test func aRequestWhoseTimestampIsFarFromThisClockIsRefused() {
        let clock: Int64 = 1_800_000_000
        var stale = KDEConnectPairing(paired: false)
        #expect(
            stale.received(pair: true, timestamp: clock - 1801, at: .testTime(0), clock: clock) == [
                .send(pair: false, timestamp: nil)
            ]
        )
        #expect(stale.state == .unpaired)
        #expect(
            stale.received(pair: true, timestamp: .min, at: .testTime(0), clock: clock) == [
                .send(pair: false, timestamp: nil)
            ]
        )
        #expect(
            stale.received(pair: true, timestamp: clock + 1800, at: .testTime(0), clock: clock) == [
                .askUser(timestamp: clock + 1800)
            ]
        )
        // Version 7 sends no timestamp: nothing to check.
        var old = KDEConnectPairing(paired: false)
        #expect(old.received(pair: true, timestamp: nil, at: .testTime(0), clock: clock) == [.askUser(timestamp: nil)])
    }

    /// FailCases/FuzzKDEConnectPackets/lapsed-request-then-stale-request.bin: a request the user was asked about
    /// lapses unanswered, and the next request, long after, carries a timestamp far from this clock: the first is
    /// ended, the second refused, and the user is not asked.
    @Test func aRequestThatLapsedThenAStaleOneIsEndedThenRefused() {
        let clock: Int64 = 1_800_000_000
        var pairing = KDEConnectPairing(paired: false)
        #expect(
            pairing.received(pair: true, timestamp: clock + 100, at: .testTime(107), clock: clock) == [
                .askUser(timestamp: clock + 100)
            ]
        )
        #expect(
            pairing.received(pair: true, timestamp: clock - 1801, at: .testTime(212.5), clock: clock) == [
                .failed("the request lapsed unanswered"), .send(pair: false, timestamp: nil),
            ]
        )
        #expect(pairing.state == .unpaired)
    }

    @Test func aPairedDeviceThatUnpairsIsUnpairedAndOneThatAsksAgainIsAnsweredYes() {
        var pairing = KDEConnectPairing(paired: true)
        #expect(pairing.received(pair: true, timestamp: nil, at: .testTime(0)) == [.send(pair: true, timestamp: nil)])
        #expect(pairing.state == .paired)
        #expect(pairing.received(pair: false, timestamp: nil, at: .testTime(1)) == [.unpaired])
        #expect(pairing.state == .unpaired)
        // A "no" nobody asked for changes nothing; a refusal of our request ends it.
        #expect(pairing.received(pair: false, timestamp: nil, at: .testTime(2)) == [])
        _ = pairing.request(at: .testTime(3), timestamp: 3)
        #expect(
            pairing.received(pair: false, timestamp: nil, at: .testTime(4)) == [.failed("the device refused to pair")]
        )
    }
}
