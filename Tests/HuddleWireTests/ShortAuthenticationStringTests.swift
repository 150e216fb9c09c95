import Crypto
import Foundation
import HuddleWire
import Testing

@Suite("Short authentication string")
struct ShortAuthenticationStringTests {
    func random(_ count: Int, _ generator: inout some RandomNumberGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    @Test func knownAnswer() {
        let sas = ShortAuthenticationString(
            initiatorNonce: Array(repeating: 1, count: 32),
            responderNonce: Array(repeating: 2, count: 32),
            initiatorHello: [1, 2, 3],
            responderHello: [4, 5, 6],
            initiatorFingerprint: Array(repeating: 0x11, count: 32),
            responderFingerprint: Array(repeating: 0x22, count: 32)
        )
        // Computed independently: HKDF-SHA256 per RFC 5869 over the inputs of docs/security.md §3.5.
        let salt = Array(SHA256.hash(data: [1, 2, 3, 4, 5, 6]))
        let prk = HMAC<SHA256>.authenticationCode(
            for: Array(repeating: UInt8(1), count: 32) + Array(repeating: 2, count: 32),
            using: SymmetricKey(data: salt)
        )
        let info = Array("p2ps-sas-v1".utf8) + Array(repeating: 0x11, count: 32) + Array(repeating: 0x22, count: 32)
        let okm = Array(HMAC<SHA256>.authenticationCode(for: info + [1], using: SymmetricKey(data: Array(prk))))
        let expected = (UInt32(okm[0]) << 24 | UInt32(okm[1]) << 16 | UInt32(okm[2]) << 8 | UInt32(okm[3])) % 1_000_000
        #expect(sas.code == expected)
        #expect(sas.displayCode.count == 7)
        #expect(sas.displayCode.replacingOccurrences(of: " ", with: "") == String(format: "%06d", expected))
    }

    @Test func commitmentBindsBothKeysAndTheNonce() {
        let a = Array(repeating: UInt8(1), count: 32)
        let b = Array(repeating: UInt8(2), count: 32)
        let n = Array(repeating: UInt8(3), count: 32)
        let base = ShortAuthenticationString.commitment(
            initiatorFingerprint: a,
            responderFingerprint: b,
            initiatorNonce: n
        )
        #expect(base == Array(SHA256.hash(data: Array("p2ps-sas-commit-v1".utf8) + a + b + n)))
        #expect(
            base
                != ShortAuthenticationString.commitment(
                    initiatorFingerprint: b,
                    responderFingerprint: a,
                    initiatorNonce: n
                )
        )
        #expect(
            base
                != ShortAuthenticationString.commitment(
                    initiatorFingerprint: a,
                    responderFingerprint: b,
                    initiatorNonce: a
                )
        )
    }

    @Test func honestRunsAgreeAndCodesSpreadEvenly() {
        var generator = SystemRandomNumberGenerator()
        var buckets = [Int](repeating: 0, count: 100)
        let runs = 10_000
        for _ in 0..<runs {
            let nI = random(32, &generator)
            let nR = random(32, &generator)
            let fpI = random(32, &generator)
            let fpR = random(32, &generator)
            let mine = ShortAuthenticationString(
                initiatorNonce: nI,
                responderNonce: nR,
                initiatorHello: [1],
                responderHello: [2],
                initiatorFingerprint: fpI,
                responderFingerprint: fpR
            )
            let theirs = ShortAuthenticationString(
                initiatorNonce: nI,
                responderNonce: nR,
                initiatorHello: [1],
                responderHello: [2],
                initiatorFingerprint: fpI,
                responderFingerprint: fpR
            )
            #expect(mine == theirs)
            #expect(mine.code < 1_000_000)
            buckets[Int(mine.code / 10_000)] += 1
        }
        // χ² with 99 degrees of freedom: the 99.99th percentile is about 160.
        let expected = Double(runs) / 100
        let chiSquared = buckets.reduce(0.0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
        #expect(chiSquared < 160)
    }

    @Test func relayWithItsOwnKeysAlmostNeverMatches() {
        var generator = SystemRandomNumberGenerator()
        var matches = 0
        for _ in 0..<10_000 {
            let fpI = random(32, &generator)
            let fpR = random(32, &generator)
            let fpM = random(32, &generator)
            let nI = random(32, &generator)
            let nR = random(32, &generator)
            let nM = random(32, &generator)
            // Session I↔M (M as responder) and session M↔R (M as initiator); M forwards what it can.
            let left = ShortAuthenticationString(
                initiatorNonce: nI,
                responderNonce: nM,
                initiatorHello: [1],
                responderHello: [2],
                initiatorFingerprint: fpI,
                responderFingerprint: fpM
            )
            let right = ShortAuthenticationString(
                initiatorNonce: nM,
                responderNonce: nR,
                initiatorHello: [1],
                responderHello: [2],
                initiatorFingerprint: fpM,
                responderFingerprint: fpR
            )
            if left.code == right.code { matches += 1 }
        }
        #expect(matches <= 1)
    }

    @Test func confirmationsAreRoleBound() {
        let sas = ShortAuthenticationString(
            initiatorNonce: Array(repeating: 1, count: 32),
            responderNonce: Array(repeating: 2, count: 32),
            initiatorHello: [],
            responderHello: [],
            initiatorFingerprint: Array(repeating: 3, count: 32),
            responderFingerprint: Array(repeating: 4, count: 32)
        )
        let transcript = Array(repeating: UInt8(9), count: 32)
        let mac = sas.confirmation(role: .initiator, transcript: transcript)
        #expect(sas.isValidConfirmation(mac, role: .initiator, transcript: transcript))
        #expect(!sas.isValidConfirmation(mac, role: .responder, transcript: transcript))
        #expect(!sas.isValidConfirmation(mac, role: .initiator, transcript: [9]))
    }
}
