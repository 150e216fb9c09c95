import HuddleWire
import NIOCore
import Testing

/// Pairing with a link (`docs/wire-protocol.md` §5.8): the request carries a proof of the link's secret bound to
/// both keys and both HELLOs; the responder asks nobody, and both sides come out paired as verified.
@Suite("Pairing link handshake")
struct LinkPairingHandshakeTests {
    static let secret = Array(repeating: UInt8(0x5A), count: PairingLinkProof.secretSize)

    static func pair(secret: [UInt8] = Self.secret, issued: [UInt8]? = Self.secret) -> HandshakePair {
        var pair = HandshakePair(purpose: .linkPairing(secret: secret))
        if let issued { pair.links.issue(secret: issued, expires: pair.now + .seconds(600)) }
        return pair
    }

    @Test func aValidLinkConnectsWithoutACodeAndBothSidesArePairedByIt() throws {
        var pair = Self.pair()
        pair.run()
        #expect(pair.wireNames == ["I:HELLO", "R:HELLO", "I:CONNECT_REQUEST"])
        #expect(pair.runsAsked.isEmpty)
        let prompt = try #require(pair.prompts(.responder).first)
        #expect(prompt.pairingLink && prompt.code == nil)
        #expect(pair.prompts(.initiator).isEmpty)
        pair.decide(.responder, accept: true)
        let outcomeI = try #require(pair.outcome(.initiator))
        let outcomeR = try #require(pair.outcome(.responder))
        #expect(outcomeI.pairedWithLink && outcomeR.pairedWithLink)
        #expect(!outcomeI.pairedWithCode && !outcomeR.pairedWithCode)
        #expect(outcomeI.transcript == outcomeR.transcript)
        // The link works once.
        var again = Self.pair(issued: nil)
        again.links = pair.links
        again.run()
        #expect(again.failure(.initiator) == .pairingRejected(reason: .linkRefused))
    }

    @Test(arguments: [
        ("another secret", Array(repeating: UInt8(0x11), count: 16), false),
        ("expired", LinkPairingHandshakeTests.secret, true),
    ])
    func aWrongOrExpiredLinkIsRefusedWithItsReason(_ label: String, secret: [UInt8], expired: Bool) {
        var pair = Self.pair(secret: secret)
        if expired { pair.now += .seconds(601) }
        pair.run()
        #expect(pair.wireNames == ["I:HELLO", "R:HELLO", "I:CONNECT_REQUEST", "R:DECISION"], "\(label)")
        #expect(pair.failure(.responder) == .pairingRejected(reason: .linkRefused))
        #expect(pair.failure(.initiator) == .pairingRejected(reason: .linkRefused))
        #expect(pair.prompts(.responder).isEmpty)
    }

    /// The proof is bound to the keys TLS proved: one computed for another initiator key is refused.
    @Test func aProofForAnotherKeyIsRefused() {
        var pair = HandshakePair(
            responderSeenFingerprint: Array(repeating: 0x33, count: 32),
            purpose: .linkPairing(secret: Self.secret)
        )
        pair.links.issue(secret: Self.secret, expires: pair.now + .seconds(600))
        pair.run()
        #expect(pair.failure(.responder) == .pairingRejected(reason: .linkRefused))
        #expect(pair.links.openCount(now: pair.now) == 1, "a refused proof uses nothing up")
    }

    @Test func theRequestRoundTripsAndAKindAboveTwoIsMalformed() throws {
        let request = PeerControlMessage.connectRequest(
            PeerConnectRequest(pairing: false, link: true, commitment: Array(repeating: 7, count: 32), context: [1])
        )
        var bytes = request.encoded()
        #expect(bytes[1] == 2)
        #expect(try PeerControlMessage(decoding: .init(bytes: bytes)) == request)
        bytes[1] = 3
        #expect(throws: PeerWireError.self) { try PeerControlMessage(decoding: .init(bytes: bytes)) }
    }
}
