import HuddleWire
import NIOCore
import Testing

@Suite("Peer handshake state machine")
struct PeerHandshakeTests {
    @Test func firstContactShowsTheSameCodeOnBothSidesAndConnectsWhenBothAccept() throws {
        var pair = HandshakePair()
        pair.run()
        #expect(pair.wireNames == ["I:HELLO", "R:HELLO", "I:CONNECT_REQUEST", "R:SAS_NONCE", "I:SAS_REVEAL"])
        let codeI = try #require(pair.prompts(.initiator).first?.code)
        let codeR = try #require(pair.prompts(.responder).first?.code)
        #expect(codeI == codeR)
        #expect(pair.prompts(.responder).first?.context == Array("let's chat".utf8))
        #expect(pair.prompts(.responder).first?.peerHello.displayName == "Ada")
        pair.decide(.responder, accept: true)
        #expect(pair.outcome(.responder) == nil)
        pair.decide(.initiator, accept: true)
        let outcomeI = try #require(pair.outcome(.initiator))
        let outcomeR = try #require(pair.outcome(.responder))
        #expect(outcomeI.pairedWithCode && outcomeR.pairedWithCode)
        #expect(outcomeI.transcript == outcomeR.transcript)
        #expect(outcomeI.initiatorKeyShare == outcomeR.initiatorKeyShare)
        #expect(outcomeI.responderKeyShare == outcomeR.responderKeyShare)
        #expect(outcomeI.initiatorKeyShare != outcomeI.responderKeyShare)
        #expect(outcomeI.peerHello.displayName == "Bob" && outcomeR.peerHello.displayName == "Ada")
        #expect(pair.initiator.isConnected && pair.responder.isConnected)
    }

    @Test func pinnedPeerConnectsAfterOnlyTheResponderAccepts() throws {
        var pair = HandshakePair(
            initiatorTrust: .pinned(maximumVersionSeen: 1),
            responderTrust: .pinned(maximumVersionSeen: 1)
        )
        pair.run()
        #expect(pair.wireNames == ["I:HELLO", "R:HELLO", "I:CONNECT_REQUEST"])
        #expect(pair.prompts(.initiator).isEmpty)
        let prompt = try #require(pair.prompts(.responder).first)
        #expect(prompt.code == nil)
        pair.decide(.responder, accept: true)
        #expect(pair.wireNames.suffix(3) == ["R:DECISION", "R:KEYSHARE", "I:KEYSHARE"])
        #expect(try #require(pair.outcome(.initiator)).pairedWithCode == false)
        #expect(pair.responder.isConnected && pair.initiator.isConnected)
    }

    @Test(arguments: [PeerRole.initiator, .responder])
    func denyOnEitherSideReachesBothAsRejection(_ denier: PeerRole) {
        var pair = HandshakePair()
        pair.run()
        pair.decide(denier.other, accept: true)
        pair.decide(denier, accept: false)
        #expect(pair.failure(.initiator) == .pairingRejected(reason: .denied))
        #expect(pair.failure(.responder) == .pairingRejected(reason: .denied))
        #expect(pair.outcome(.initiator) == nil && pair.outcome(.responder) == nil)
        #expect(pair.initiator.isClosed && pair.responder.isClosed)
    }

    @Test func onlyOneAcceptNeverConnectsAndTimesOut() {
        var pair = HandshakePair()
        pair.run()
        pair.decide(.responder, accept: true)
        #expect(!pair.initiator.isConnected && !pair.responder.isConnected)
        let early = pair.now + .seconds(59)
        #expect(pair.responder.deadlinePassed(now: early).isEmpty)
        let late = pair.now + .seconds(60)
        #expect(pair.responder.deadlinePassed(now: late) == [.fail(.pairingTimedOut, notify: .timedOut)])
        #expect(pair.responder.isClosed)
    }

    @Test func helloTimesOutWhenThePeerSaysNothing() {
        var pair = HandshakePair()
        _ = pair.initiator.start()
        let actions = pair.initiator.deadlinePassed(now: pair.now + .seconds(5))
        #expect(actions == [.fail(.handshakeTimedOut(state: "awaiting HELLO"), notify: .timedOut)])
    }

    @Test func manInTheMiddleSeesDifferentCodes() throws {
        // Each side observed a different key for the other in TLS: the relay's.
        let relayKey = Array(repeating: UInt8(0x33), count: 32)
        var pair = HandshakePair(initiatorSeenFingerprint: relayKey, responderSeenFingerprint: relayKey)
        pair.run()
        // The relay forwarded the commitment computed over the relay's key, so the responder refuses the reveal.
        #expect(pair.failure(.responder) == .sasCommitmentMismatch)
        #expect(pair.outcome(.responder) == nil)
    }

    @Test func revealThatDoesNotMatchTheCommitmentIsRefused() {
        var pair = HandshakePair()
        var responder = pair.responder
        _ = responder.start()
        let hello = PeerControlMessage.hello(HandshakePair.hello("Ada"))
        _ = responder.received(hello, size: 30, now: pair.now)
        let request = PeerControlMessage.connectRequest(
            PeerConnectRequest(pairing: true, commitment: Array(repeating: 0, count: 32), context: [])
        )
        #expect(responder.received(request, size: 40, now: pair.now) == [.openPairingRun])
        #expect(responder.pairingRun(refusal: nil, now: pair.now) == [.send(.sasNonce(Array(repeating: 2, count: 32)))])
        let actions = responder.received(.sasReveal(Array(repeating: 1, count: 32)), size: 35, now: pair.now)
        #expect(actions == [.fail(.sasCommitmentMismatch, notify: .protocolError)])
        pair.responder = responder
    }

    @Test func outOfOrderMessagesAreViolations() {
        let now = ContinuousClock.Instant.now
        let cases: [(PeerRole, [PeerControlMessage], String, String)] = [
            (.responder, [.sasReveal(Array(repeating: 1, count: 32))], "awaiting HELLO", "SAS_REVEAL"),
            (
                .responder, [.hello(HandshakePair.hello("Ada")), .sasNonce(Array(repeating: 1, count: 32))],
                "awaiting CONNECT_REQUEST", "SAS_NONCE"
            ),
            (
                .initiator,
                [
                    .hello(HandshakePair.hello("Bob")),
                    .connectRequest(.init(pairing: false, commitment: [], context: [])),
                ],
                "awaiting SAS_NONCE", "CONNECT_REQUEST"
            ),
            (
                .initiator, [.hello(HandshakePair.hello("Bob")), .hello(HandshakePair.hello("Bob"))],
                "awaiting SAS_NONCE", "HELLO"
            ),
            (.responder, [.ping(1)], "awaiting HELLO", "PING"),
            (.responder, [.keyShare(Array(repeating: 1, count: 32))], "awaiting HELLO", "KEYSHARE"),
        ]
        for (role, messages, state, name) in cases {
            var machine = PeerHandshake(
                role: role,
                localHello: HandshakePair.hello("X"),
                localFingerprint: HandshakePair.fingerprintI,
                remoteFingerprint: HandshakePair.fingerprintR,
                trust: .unknown,
                secrets: HandshakePair.secrets(5),
                now: now
            )
            _ = machine.start()
            var last: [PeerHandshake.Action] = []
            for message in messages {
                last = machine.received(message, size: 40, now: now)
                if last == [.openPairingRun] { last = machine.pairingRun(refusal: nil, now: now) }
            }
            #expect(last == [.fail(.protocolViolation(state: state, message: name), notify: .protocolError)])
            #expect(machine.isClosed)
        }
    }

    @Test func applicationDataBeforeAcceptanceIsAViolation() {
        var pair = HandshakePair()
        pair.run()
        #expect(
            pair.responder.receivedApplicationData() == [
                .fail(.protocolViolation(state: "deciding", message: "application data"), notify: .protocolError)
            ]
        )
    }

    @Test func oversizedMessagesBeforeAcceptanceAreRefused() {
        var pair = HandshakePair()
        _ = pair.responder.start()
        let big = PeerControlMessage.hello(HandshakePair.hello("Ada"))
        #expect(
            pair.responder.received(big, size: 16 * 1024 + 1, now: pair.now) == [
                .fail(.frameTooLarge(limit: 16 * 1024, declared: 16 * 1024 + 1), notify: .protocolError)
            ]
        )
        var other = HandshakePair()
        _ = other.responder.start()
        _ = other.responder.received(big, size: 40, now: other.now)
        let request = PeerControlMessage.connectRequest(.init(pairing: false, commitment: [], context: []))
        #expect(
            other.responder.received(request, size: 4097, now: other.now) == [
                .fail(.frameTooLarge(limit: 4096, declared: 4097), notify: .protocolError)
            ]
        )
    }

    @Test func otherSessionsAndVersionsAreRefused() {
        var pair = HandshakePair(responderHello: HandshakePair.hello("Bob", type: "_other._tcp"))
        pair.run()
        #expect(pair.failure(.initiator) == .sessionMismatch(ours: "_chat._tcp", theirs: "_other._tcp"))
        var versions = HandshakePair(responderHello: HandshakePair.hello("Bob", versions: 4...5))
        versions.run()
        #expect(versions.failure(.initiator) == .protocolMismatch(ours: 2...3, theirs: 4...5))
        // Version 1 had no pairing budget and no peer binding: such a peer is refused, and told.
        var old = HandshakePair(initiatorHello: HandshakePair.hello("Ada", versions: 1...1))
        old.run()
        #expect(old.failure(.responder) == .protocolMismatch(ours: 2...3, theirs: 1...1))
        #expect(
            PeerWireError.protocolMismatch(ours: 2...2, theirs: 1...1).description
                == "the peer speaks Huddle protocol 1, this side 2: update the older side"
        )
    }

    @Test func pinnedPeerOfferingAnOlderVersionIsADowngrade() {
        var pair = HandshakePair(
            initiatorTrust: .pinned(maximumVersionSeen: 3),
            responderTrust: .pinned(maximumVersionSeen: 2)
        )
        pair.run()
        #expect(pair.failure(.initiator) == .protocolDowngrade(pinned: 3, offered: 2))
    }

    @Test func trustedRequestToAPeerThatForgotUsAsksForPairing() {
        var pair = HandshakePair(initiatorTrust: .pinned(maximumVersionSeen: 1), responderTrust: .unknown)
        pair.run()
        #expect(pair.failure(.initiator) == .pairingRejected(reason: .pairingRequired))
        #expect(pair.failure(.responder) == .pairingRejected(reason: .pairingRequired))
        #expect(pair.prompts(.responder).isEmpty)
    }

    @Test func forgedConfirmationIsRefused() {
        var pair = HandshakePair()
        pair.run()
        let forged = PeerControlMessage.decision(
            PeerDecision(accept: true, reason: .goodbye, confirmation: Array(repeating: 0, count: 32))
        )
        #expect(
            pair.responder.received(forged, size: 36, now: pair.now) == [
                .fail(.confirmationMismatch, notify: .protocolError)
            ]
        )
    }

    @Test func closeFromThePeerEndsTheHandshakeWithItsReason() {
        var pair = HandshakePair()
        pair.run()
        #expect(
            pair.initiator.received(.close(.cancelled), size: 2, now: pair.now) == [
                .fail(.closedByPeer(reason: .cancelled), notify: nil)
            ]
        )
    }
}
