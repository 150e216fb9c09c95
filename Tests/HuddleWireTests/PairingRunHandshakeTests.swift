import Crypto
import HuddleWire
import Testing

/// The handshake charges the pairing budget before anything that lets the peer compute the code leaves
/// (`docs/threat-model.md`, "The pairing budget").
@Suite("Pairing runs in the handshake")
struct PairingRunHandshakeTests {
    static let now = ContinuousClock.Instant.now

    static func responder(nonce: [UInt8] = Array(repeating: 2, count: 32)) -> PeerHandshake {
        var machine = PeerHandshake(
            role: .responder,
            localHello: HandshakePair.hello("Bob"),
            localFingerprint: HandshakePair.fingerprintR,
            remoteFingerprint: HandshakePair.fingerprintI,
            trust: .unknown,
            secrets: .init(nonce: nonce, keyShare: Array(repeating: 3, count: 32)),
            now: now
        )
        _ = machine.start()
        _ = machine.received(.hello(HandshakePair.hello("Mallory")), size: 40, now: now)
        return machine
    }

    static func commit(_ initiatorNonce: [UInt8]) -> PeerControlMessage {
        let commitment = ShortAuthenticationString.commitment(
            initiatorFingerprint: HandshakePair.fingerprintI,
            responderFingerprint: HandshakePair.fingerprintR,
            initiatorNonce: initiatorNonce
        )
        return .connectRequest(PeerConnectRequest(pairing: true, commitment: commitment, context: []))
    }

    @Test func theResponderAsksForARunBeforeItsNonceAndSendsNoneWhenRefused() {
        var granted = Self.responder()
        #expect(
            granted.received(Self.commit(Array(repeating: 1, count: 32)), size: 40, now: Self.now) == [.openPairingRun]
        )
        #expect(granted.pairingRun(refusal: nil, now: Self.now) == [.send(.sasNonce(Array(repeating: 2, count: 32)))])

        let refusals: [(PairingBudget.Refusal, PeerCloseReason)] = [
            (.pairingInProgress, .pairingBusy),
            (.tooSoon(retryAt: Self.now + .seconds(1)), .pairingBusy),
            (.paused(until: Self.now + .seconds(60)), .pairingPaused),
        ]
        for (refusal, reason) in refusals {
            var refused = Self.responder()
            _ = refused.received(Self.commit(Array(repeating: 1, count: 32)), size: 40, now: Self.now)
            #expect(
                refused.pairingRun(refusal: refusal, now: Self.now) == [
                    .fail(.pairingRefused(reason: reason), notify: reason)
                ]
            )
            #expect(refused.isClosed)
        }
    }

    @Test func nothingMayArriveWhileTheBudgetDecides() {
        var machine = Self.responder()
        _ = machine.received(Self.commit(Array(repeating: 1, count: 32)), size: 40, now: Self.now)
        let actions = machine.received(.sasReveal(Array(repeating: 1, count: 32)), size: 40, now: Self.now)
        #expect(
            actions == [
                .fail(
                    .protocolViolation(state: "awaiting the pairing budget", message: "SAS_REVEAL"),
                    notify: .protocolError
                )
            ]
        )
        #expect(machine.pairingRun(refusal: nil, now: Self.now) == [])
    }

    @Test func theInitiatorAsksForARunBeforeItCommits() throws {
        var pair = HandshakePair()
        pair.budgetRefusal[.initiator] = .paused(until: pair.now + .seconds(60))
        pair.run()
        #expect(pair.wireNames == ["I:HELLO", "R:HELLO"])  // the CLOSE goes out with the failure
        #expect(pair.runsAsked == [.initiator: 1])
        #expect(pair.initiatorEvents == [.fail(.pairingRefused(reason: .pairingPaused), notify: .pairingPaused)])
        #expect(pair.prompts(.responder).isEmpty)
    }

    @Test func aPinnedPeerIsNoPairingRun() {
        var pair = HandshakePair(
            initiatorTrust: .pinned(maximumVersionSeen: 1),
            responderTrust: .pinned(maximumVersionSeen: 1)
        )
        pair.run()
        #expect(pair.runsAsked.isEmpty)
        #expect(pair.prompts(.responder).count == 1)
    }

    @Test func anHonestFirstContactAsksOnceOnEachSide() throws {
        var pair = HandshakePair()
        pair.run()
        #expect(pair.runsAsked == [.initiator: 1, .responder: 1])
        #expect(pair.prompts(.initiator).first?.code == pair.prompts(.responder).first?.code)
    }

    /// No nonce ever leaves without a granted run: random message sequences and budget answers against both
    /// roles, checking every action list.
    @Test func noNonceOrCommitmentLeavesWithoutAGrantedRun() {
        var generator = DatagramTestGenerator(seed: 0x5eed)
        let nonces = (0..<4).map { Array(repeating: UInt8($0 + 1), count: 32) }
        for _ in 0..<5_000 {
            let role: PeerRole = generator.next() % 2 == 0 ? .initiator : .responder
            var machine = PeerHandshake(
                role: role,
                localHello: HandshakePair.hello("Me"),
                localFingerprint: role == .initiator ? HandshakePair.fingerprintI : HandshakePair.fingerprintR,
                remoteFingerprint: role == .initiator ? HandshakePair.fingerprintR : HandshakePair.fingerprintI,
                trust: generator.next() % 4 == 0 ? .pinned(maximumVersionSeen: 1) : .unknown,
                secrets: HandshakePair.secrets(9),
                now: Self.now
            )
            var granted = false
            var actions = machine.start()
            for _ in 0..<8 {
                for action in actions {
                    if case .send(.sasNonce) = action { #expect(granted, "a nonce without a granted run") }
                    if case .send(.connectRequest(let request)) = action, request.pairing {
                        #expect(granted, "a commitment without a granted run")
                    }
                }
                if actions.contains(.openPairingRun) {
                    let grant = generator.next() % 3 != 0
                    granted = granted || grant
                    actions = machine.pairingRun(refusal: grant ? nil : .pairingInProgress, now: Self.now)
                    continue
                }
                let message: PeerControlMessage =
                    switch generator.next() % 6 {
                    case 0: .hello(HandshakePair.hello("Peer"))
                    case 1: Self.commit(nonces[Int(generator.next() % 4)])
                    case 2: .sasNonce(nonces[Int(generator.next() % 4)])
                    case 3: .sasReveal(nonces[Int(generator.next() % 4)])
                    case 4: .connectRequest(PeerConnectRequest(pairing: false, commitment: [], context: []))
                    default: .decision(PeerDecision(accept: true, reason: .goodbye, confirmation: []))
                    }
                actions = machine.received(message, size: 40, now: Self.now)
            }
        }
    }

    /// The review's grinder on the state machine alone: an initiator that commits, reads the nonce, computes the
    /// code and walks away unless it matches, against a responder whose budget runs on a manual clock. Over a
    /// simulated minute it reads at most six nonces, and the responder never prompts.
    @Test func aGrinderReadsAtMostSixNoncesAMinuteAndNeverReachesAPrompt() {
        var budget = PairingBudget()
        var generator = DatagramTestGenerator(seed: 42)
        let target = "123 456"
        var nonces = 0
        var prompts = 0
        var attempts = 0
        var clock = Self.now
        while clock < Self.now + .seconds(60) {
            attempts += 1
            clock += .milliseconds(5)
            let responderNonce = (0..<32).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let initiatorNonce = (0..<32).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            var responder = Self.responder(nonce: responderNonce)
            var actions = responder.received(Self.commit(initiatorNonce), size: 40, now: clock)
            var run: PairingBudget.Run?
            if actions == [.openPairingRun] {
                let source = PairingBudget.Source(
                    device: try! DeviceID(bytes: (0..<32).map { _ in UInt8(truncatingIfNeeded: generator.next()) }),
                    address: "10.0.\(attempts / 250 % 250).\(attempts % 250)"
                )
                switch budget.open(source, role: .responder, now: clock) {
                case .granted(let granted):
                    run = granted
                    actions = responder.pairingRun(refusal: nil, now: clock)
                case .refused(let refusal):
                    actions = responder.pairingRun(refusal: refusal, now: clock)
                }
            }
            prompts += actions.count { if case .prompt = $0 { true } else { false } }
            for case .send(.sasNonce(let nonce)) in actions {
                nonces += 1
                let code = ShortAuthenticationString(
                    initiatorNonce: initiatorNonce,
                    responderNonce: nonce,
                    initiatorHello: PeerControlMessage.hello(HandshakePair.hello("Mallory")).encoded(),
                    responderHello: PeerControlMessage.hello(HandshakePair.hello("Bob")).encoded(),
                    initiatorFingerprint: HandshakePair.fingerprintI,
                    responderFingerprint: HandshakePair.fingerprintR
                )
                #expect(code.displayCode.count == 7)
                _ = code.displayCode == target  // the grinder would reveal only on a match
            }
            if let run { _ = budget.close(run, paired: false, now: clock + .milliseconds(1)) }
        }
        #expect(attempts > 10_000)
        #expect(nonces <= 6)
        #expect(nonces == 5)
        #expect(prompts == 0)
    }
}
