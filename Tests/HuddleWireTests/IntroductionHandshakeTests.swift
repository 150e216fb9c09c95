import HuddleWire
import Testing

/// An introduction (`docs/wire-protocol.md` §5.7): the initiator learns the responder's HELLO and leaves before any
/// request, so neither side asks, charges a pairing run or pins anything.
@Suite("Introduction handshake")
struct IntroductionHandshakeTests {
    @Test(arguments: [PeerHandshake.Trust.unknown, .pinned(maximumVersionSeen: 1)])
    func theInitiatorLearnsTheResponderAndSendsNothingAfterItsHello(_ trust: PeerHandshake.Trust) throws {
        var pair = HandshakePair(
            initiatorTrust: trust,
            responderHello: HandshakePair.hello("Bob", versions: 1...3),
            purpose: .introduction
        )
        pair.run()
        #expect(pair.wireNames == ["I:HELLO", "R:HELLO"])
        #expect(pair.initiatorEvents == [.introduced(HandshakePair.hello("Bob", versions: 1...3), version: 3)])
        #expect(pair.initiator.isClosed)
        #expect(pair.runsAsked.isEmpty)
        #expect(pair.prompts(.initiator).isEmpty && pair.prompts(.responder).isEmpty)
    }

    @Test func theResponderSeesOnlyAGoodbyeAndAsksNobody() {
        var pair = HandshakePair(purpose: .introduction)
        pair.run()
        let actions = pair.responder.received(.close(.goodbye), size: 2, now: pair.now)
        #expect(actions == [.fail(.closedByPeer(reason: .goodbye), notify: nil)])
        #expect(pair.responderEvents.isEmpty)
        #expect(pair.runsAsked.isEmpty)
    }

    @Test func anIntroductionToAnotherSessionIsRefusedLikeAConnection() {
        var pair = HandshakePair(
            responderHello: HandshakePair.hello("Bob", type: "_other._tcp"),
            purpose: .introduction
        )
        pair.run()
        #expect(pair.failure(.initiator) == .sessionMismatch(ours: "_chat._tcp", theirs: "_other._tcp"))
        #expect(!pair.initiatorEvents.contains { if case .introduced = $0 { true } else { false } })
    }

    @Test func aResponderIgnoresThePurposeItIsGiven() {
        let responder = PeerHandshake(
            role: .responder,
            purpose: .introduction,
            localHello: HandshakePair.hello("Bob"),
            localFingerprint: HandshakePair.fingerprintR,
            remoteFingerprint: HandshakePair.fingerprintI,
            trust: .unknown,
            secrets: HandshakePair.secrets(2),
            now: .now
        )
        #expect(responder.purpose == .connect)
    }
}
