import Crypto
import Testing

@testable import HuddleWire

/// Known answers, nonce uniqueness and size limits of the datagram layer (`docs/security.md` §3.7, §5 F1, F2,
/// F8). The expected bytes were computed once with an independent HKDF/ChaCha20-Poly1305 implementation and are
/// checked in here as hex.
@Suite("Datagram crypto")
struct DatagramCryptoTests {
    @Test("F1: the key schedule gives the fixed bytes for fixed inputs")
    func keyScheduleKnownAnswer() throws {
        let schedule = try DatagramFixture.schedule()
        #expect(schedule.initiatorToResponderKey.datagramBytes == hex(DatagramFixture.keyI2R))
        #expect(schedule.responderToInitiatorKey.datagramBytes == hex(DatagramFixture.keyR2I))
        #expect(schedule.initiatorToResponderIV == hex(DatagramFixture.ivI2R))
        #expect(schedule.responderToInitiatorIV == hex(DatagramFixture.ivR2I))
        #expect(schedule.initiatorConnectionID.bytes == hex(DatagramFixture.cidI))
        #expect(schedule.responderConnectionID.bytes == hex(DatagramFixture.cidR))
        #expect(schedule.responderConnectionID.rawValue == 0xA810_06FF_01DC_51E2)
        #expect(schedule.responderConnectionID.description == DatagramFixture.cidR)
    }

    @Test("F1: each role sends on its direction's key to the other side's connection ID")
    func keysForRoles() throws {
        let schedule = try DatagramFixture.schedule()
        let initiator = schedule.keys(for: .initiator)
        let responder = schedule.keys(for: .responder)
        #expect(initiator.sendKey.datagramBytes == hex(DatagramFixture.keyI2R))
        #expect(initiator.sendIV == hex(DatagramFixture.ivI2R))
        #expect(initiator.remoteConnectionID.bytes == hex(DatagramFixture.cidR))
        #expect(initiator.receiveKey.datagramBytes == hex(DatagramFixture.keyR2I))
        #expect(initiator.receiveIV == hex(DatagramFixture.ivR2I))
        #expect(initiator.localConnectionID.bytes == hex(DatagramFixture.cidI))
        #expect(responder.sendKey.datagramBytes == hex(DatagramFixture.keyR2I))
        #expect(responder.sendIV == hex(DatagramFixture.ivR2I))
        #expect(responder.remoteConnectionID.bytes == hex(DatagramFixture.cidI))
        #expect(responder.receiveKey.datagramBytes == hex(DatagramFixture.keyI2R))
        #expect(responder.localConnectionID.bytes == hex(DatagramFixture.cidR))
    }

    @Test("F1: sealed packets have the fixed layout, nonce and AAD")
    func packetKnownAnswer() throws {
        let schedule = try DatagramFixture.schedule()
        var initiator = DatagramSealer(keys: schedule.keys(for: .initiator))
        var responder = DatagramSealer(keys: schedule.keys(for: .responder))
        let payload = Array("huddle datagram".utf8)

        let first = try initiator.seal(payload)
        #expect(first == hex(DatagramFixture.packetI2R0))
        #expect(Array(first[0..<18]) == [0x01, 0x00] + hex(DatagramFixture.cidR) + [0, 0, 0, 0, 0, 0, 0, 0])
        #expect(try initiator.seal([]) == hex(DatagramFixture.packetI2R1Empty))
        #expect(try responder.seal(payload) == hex(DatagramFixture.packetR2I0))

        #expect(initiator.rekey(now: .seconds(1)) == 1)
        #expect(try initiator.seal(payload) == hex(DatagramFixture.packetI2REpoch1))

        var opener = DatagramOpener(keys: schedule.keys(for: .responder))
        #expect(opener.open(hex(DatagramFixture.packetI2R0), now: .zero) == .delivered(payload))
    }

    @Test("F1: nonce = iv XOR (0x00000000 ‖ pn) and the key update label")
    func nonceAndKeyUpdateKnownAnswer() throws {
        let iv = hex(DatagramFixture.ivI2R)
        #expect(DatagramPacket.nonceBytes(iv: iv, packetNumber: 0) == iv)
        #expect(DatagramPacket.nonceBytes(iv: iv, packetNumber: 1) == hex("a55d625b9218aaef433cef2d"))
        #expect(
            DatagramPacket.nonceBytes(iv: iv, packetNumber: 0x0102_0304_0506_0708) == hex("a55d625b931aa9eb463ae824")
        )
        let next = DatagramPacket.nextEpochKey(after: SymmetricKey(data: hex(DatagramFixture.keyI2R)))
        #expect(next.datagramBytes == hex("32c91e9647ddb5fae0b79fb524edf59ad197e8c3f411b1b2a18325bc4ef75008"))
    }

    @Test("F1: RFC 8439 §2.8.2 AEAD test vector through ChaChaPoly")
    func rfc8439AEADVector() throws {
        let key = SymmetricKey(data: Array(UInt8(0x80)...UInt8(0x9F)))
        let nonce = try ChaChaPoly.Nonce(data: hex("070000004041424344454647"))
        let aad = hex("50515253c0c1c2c3c4c5c6c7")
        let plaintext = Array(
            "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."
                .utf8
        )
        let expectedCiphertext = hex(
            "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b"
                + "1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7"
                + "bc3ff4def08e4b7a9de576d26586cec64b6116"
        )
        let expectedTag = hex("1ae10b594f09e26a7e902ecbd0600691")

        let box = try ChaChaPoly.seal(plaintext, using: key, nonce: nonce, authenticating: aad)
        #expect(Array(box.ciphertext) == expectedCiphertext)
        #expect(Array(box.tag) == expectedTag)
        let received = try ChaChaPoly.SealedBox(nonce: nonce, ciphertext: expectedCiphertext, tag: expectedTag)
        #expect(Array(try ChaChaPoly.open(received, using: key, authenticating: aad)) == plaintext)
    }

    @Test("Key-schedule inputs must be 32 bytes")
    func inputLengths() throws {
        #expect(throws: DatagramError.invalidInputLength(name: "responderSecret", expected: 32, actual: 31)) {
            try DatagramKeySchedule(
                transcriptHash: DatagramFixture.transcriptHash,
                initiatorSecret: DatagramFixture.initiatorSecret,
                responderSecret: Array(DatagramFixture.responderSecret.dropLast()),
                initiatorFingerprint: DatagramFixture.initiatorFingerprint,
                responderFingerprint: DatagramFixture.responderFingerprint
            )
        }
    }

    @Test("F2: a million packet numbers give a million distinct nonces")
    func nonceUniqueness() {
        let iv = hex(DatagramFixture.ivI2R)
        let count = 1_000_000
        var seen = Set<UInt64>(minimumCapacity: count)
        var prefixes = Set<[UInt8]>()
        for packetNumber in 0..<UInt64(count) {
            let nonce = DatagramPacket.nonceBytes(iv: iv, packetNumber: packetNumber)
            prefixes.insert(Array(nonce[0..<4]))
            seen.insert(nonce[4..<12].reduce(0) { ($0 << 8) | UInt64($1) })
        }
        #expect(seen.count == count)
        #expect(prefixes == [Array(iv[0..<4])])
    }

    @Test("F2: sealed packets never reuse (key, nonce), across rekeys and restarts")
    func sealedNonceUniqueness() throws {
        let schedule = try DatagramFixture.schedule()
        var sealer = DatagramSealer(keys: schedule.keys(for: .initiator))
        var opener = DatagramOpener(keys: schedule.keys(for: .responder))
        var headers = Set<[UInt8]>()
        let perEpoch = 5000
        for epoch in 0..<3 {
            if epoch > 0 { sealer.rekey(now: .seconds(Int64(epoch))) }
            for index in 0..<perEpoch {
                let payload = [UInt8(epoch), UInt8(truncatingIfNeeded: index)]
                let packet = try sealer.seal(payload)
                headers.insert(Array(packet[0..<18]))
                #expect(opener.open(packet, now: .seconds(Int64(epoch))) == .delivered(payload))
            }
        }
        #expect(headers.count == 3 * perEpoch)
        #expect(sealer.sessionPacketCount == UInt64(3 * perEpoch))
        #expect(opener.counters.delivered == UInt64(3 * perEpoch))

        let key0 = schedule.initiatorToResponderKey
        let key1 = DatagramPacket.nextEpochKey(after: key0)
        let key2 = DatagramPacket.nextEpochKey(after: key1)
        #expect(Set([key0.datagramBytes, key1.datagramBytes, key2.datagramBytes]).count == 3)

        var restartSecret = DatagramFixture.initiatorSecret
        restartSecret[0] ^= 1
        let restarted = try DatagramFixture.schedule(initiatorSecret: restartSecret)
        #expect(restarted.initiatorToResponderKey.datagramBytes != key0.datagramBytes)
        #expect(restarted.initiatorToResponderIV != schedule.initiatorToResponderIV)
        #expect(restarted.responderConnectionID != schedule.responderConnectionID)
    }

    @Test("F8: a 1201-byte payload throws datagramTooLarge; 1200 bytes seal")
    func payloadLimit() throws {
        var sealer = DatagramSealer(keys: try DatagramFixture.schedule().keys(for: .initiator))
        #expect(throws: PeerWireError.datagramTooLarge(limit: 1200, size: 1201)) {
            try sealer.seal(Array(repeating: 0xAB, count: 1201))
        }
        #expect(sealer.nextPacketNumber == 0)
        #expect(try sealer.seal(Array(repeating: 0xAB, count: 1200)).count == 1200 + 34)
        #expect(sealer.nextPacketNumber == 1)

        var small = DatagramSealer(
            keys: try DatagramFixture.schedule().keys(for: .initiator),
            maximumPayloadByteCount: 16
        )
        #expect(throws: PeerWireError.datagramTooLarge(limit: 16, size: 17)) {
            try small.seal(Array(repeating: 0, count: 17))
        }
    }

    @Test("The sealer refuses to go past 2^62 packets")
    func sessionPacketLimit() throws {
        let keys = try DatagramFixture.schedule().keys(for: .initiator)
        var sealer = DatagramSealer(
            key: keys.sendKey,
            iv: keys.sendIV,
            destination: keys.remoteConnectionID,
            firstPacketNumber: (1 << 62) - 1
        )
        let last = try sealer.seal([1])
        #expect(Array(last[10..<18]) == [0x3F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: DatagramError.packetLimitReached) { try sealer.seal([2]) }
        sealer.rekey(now: .zero)
        #expect(throws: DatagramError.packetLimitReached) { try sealer.seal([3]) }
    }
}

/// Fixed inputs and the expected outputs of our construction, as hex.
enum DatagramFixture {
    static let transcriptHash = Array(UInt8(0x00)...UInt8(0x1F))
    static let initiatorSecret = Array(UInt8(0x20)...UInt8(0x3F))
    static let responderSecret = Array(UInt8(0x40)...UInt8(0x5F))
    static let initiatorFingerprint = Array(UInt8(0x60)...UInt8(0x7F))
    static let responderFingerprint = Array(UInt8(0x80)...UInt8(0x9F))

    static let keyI2R = "17921e78fbda278a55e3fe0c3f7f39f47547c2e0e0dbdd95b4fdef0f3287078d"
    static let keyR2I = "91c25939486339b02726407480ceb4bf08cee374b238e9d74234b9bc8a4917ed"
    static let ivI2R = "a55d625b9218aaef433cef2c"
    static let ivR2I = "4c04025b3ea4ccf6115ac3db"
    static let cidI = "2c2863772d12fefe"
    static let cidR = "a81006ff01dc51e2"

    /// "huddle datagram", initiator to responder, epoch 0, pn 0.
    static let packetI2R0 =
        "0100a81006ff01dc51e20000000000000000" + "05dac2f3494400c145907f5494da42" + "c175fe6a9bdccd2fc31386f2a066f1d9"
    /// An empty payload, initiator to responder, epoch 0, pn 1: header and tag only.
    static let packetI2R1Empty = "0100a81006ff01dc51e20000000000000001" + "052b35311db5f6f3ba352e6c04b0d681"
    /// "huddle datagram", responder to initiator, epoch 0, pn 0.
    static let packetR2I0 =
        "01002c2863772d12fefe0000000000000000" + "5bc1ecaed63e902db84695aa09e20a" + "db6f27be655f7943577297c9c1e887f7"
    /// "huddle datagram", initiator to responder, epoch 1 (after one key update), pn 0.
    static let packetI2REpoch1 =
        "0101a81006ff01dc51e20000000000000000" + "eed84bf5f79e8fbb06be3c109a95b4" + "a337570b1326499da4fbf7237ae825d6"

    static func schedule(initiatorSecret: [UInt8] = initiatorSecret) throws -> DatagramKeySchedule {
        try DatagramKeySchedule(
            transcriptHash: transcriptHash,
            initiatorSecret: initiatorSecret,
            responderSecret: responderSecret,
            initiatorFingerprint: initiatorFingerprint,
            responderFingerprint: responderFingerprint
        )
    }
}

/// Bytes from a hex string; traps on bad input, which is a broken fixture.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8)
    precondition(digits.count.isMultiple(of: 2), "odd-length hex fixture")
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014) with a fixed seed, so shuffles and property tests are the same on every
/// run.
struct DatagramTestGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
