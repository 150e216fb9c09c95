import HuddleWire
import NIOCore

/// Two handshake machines wired back to back: whatever one sends, the other receives, in order.
struct HandshakePair {
    var initiator: PeerHandshake
    var responder: PeerHandshake
    var now = ContinuousClock.Instant.now
    /// Everything each side did besides sending, in order.
    var initiatorEvents: [PeerHandshake.Action] = []
    var responderEvents: [PeerHandshake.Action] = []
    /// Every message put on the wire, tagged with its sender.
    var wire: [(PeerRole, PeerControlMessage)] = []
    /// How each side's pairing budget answers ``PeerHandshake/Action/openPairingRun``: granted unless set.
    var budgetRefusal: [PeerRole: PairingBudget.Refusal] = [:]
    /// Pairing runs each side asked its budget for.
    var runsAsked: [PeerRole: Int] = [:]
    /// The responder's issued pairing links, asked on ``PeerHandshake/Action/checkPairingLink(proof:binding:)``.
    var links = PairingLinkBook()

    static let fingerprintI = Array(repeating: UInt8(0x11), count: 32)
    static let fingerprintR = Array(repeating: UInt8(0x22), count: 32)

    static func hello(_ name: String, type: String = "_chat._tcp", versions: ClosedRange<UInt8> = 2...2) -> PeerHello {
        PeerHello(versions: versions, sessionType: type, instance: name.lowercased(), displayName: name, mode: 0x70)
    }

    static func secrets(_ seed: UInt8) -> PeerHandshake.Secrets {
        .init(nonce: Array(repeating: seed, count: 32), keyShare: Array(repeating: seed &+ 1, count: 32))
    }

    init(
        initiatorTrust: PeerHandshake.Trust = .unknown,
        responderTrust: PeerHandshake.Trust = .unknown,
        initiatorHello: PeerHello = Self.hello("Ada"),
        responderHello: PeerHello = Self.hello("Bob"),
        initiatorSeenFingerprint: [UInt8] = Self.fingerprintR,
        responderSeenFingerprint: [UInt8] = Self.fingerprintI,
        purpose: PeerHandshake.Purpose = .connect,
        configuration: PeerHandshakeConfiguration = .init()
    ) {
        initiator = PeerHandshake(
            role: .initiator,
            purpose: purpose,
            localHello: initiatorHello,
            localFingerprint: Self.fingerprintI,
            remoteFingerprint: initiatorSeenFingerprint,
            trust: initiatorTrust,
            context: Array("let's chat".utf8),
            secrets: Self.secrets(1),
            now: now,
            configuration: configuration
        )
        responder = PeerHandshake(
            role: .responder,
            localHello: responderHello,
            localFingerprint: Self.fingerprintR,
            remoteFingerprint: responderSeenFingerprint,
            trust: responderTrust,
            secrets: Self.secrets(2),
            now: now,
            configuration: configuration
        )
    }

    /// Starts both sides and delivers messages until both are quiet.
    mutating func run() {
        var pending: [(PeerRole, PeerHandshake.Action)] = []
        pending += initiator.start().map { (.initiator, $0) }
        pending += responder.start().map { (.responder, $0) }
        drain(&pending)
    }

    mutating func decide(_ role: PeerRole, accept: Bool) {
        var pending: [(PeerRole, PeerHandshake.Action)] =
            role == .initiator
            ? initiator.decide(accept: accept, now: now).map { (.initiator, $0) }
            : responder.decide(accept: accept, now: now).map { (.responder, $0) }
        drain(&pending)
    }

    mutating func drain(_ pending: inout [(PeerRole, PeerHandshake.Action)]) {
        while !pending.isEmpty {
            let (from, action) = pending.removeFirst()
            if action == .openPairingRun {
                runsAsked[from, default: 0] += 1
                let refusal = budgetRefusal[from]
                pending +=
                    from == .initiator
                    ? initiator.pairingRun(refusal: refusal, now: now).map { (.initiator, $0) }
                    : responder.pairingRun(refusal: refusal, now: now).map { (.responder, $0) }
                continue
            }
            if case .checkPairingLink(let proof, let binding) = action, from == .responder {
                responderEvents.append(action)
                let valid = links.redeem(proof: proof, binding: binding, now: now)
                pending += responder.linkChecked(valid: valid, now: now).map { (.responder, $0) }
                continue
            }
            guard case .send(let message) = action else {
                if from == .initiator { initiatorEvents.append(action) } else { responderEvents.append(action) }
                continue
            }
            wire.append((from, message))
            let size = message.encoded().count
            if from == .initiator {
                guard !responder.isClosed else { continue }
                pending += responder.received(message, size: size, now: now).map { (.responder, $0) }
            } else {
                guard !initiator.isClosed else { continue }
                pending += initiator.received(message, size: size, now: now).map { (.initiator, $0) }
            }
        }
    }

    func prompts(_ role: PeerRole) -> [PeerHandshake.Prompt] {
        (role == .initiator ? initiatorEvents : responderEvents).compactMap {
            if case .prompt(let prompt) = $0 { return prompt }
            return nil
        }
    }

    func outcome(_ role: PeerRole) -> PeerHandshake.Outcome? {
        for case .connected(let outcome) in role == .initiator ? initiatorEvents : responderEvents { return outcome }
        return nil
    }

    func failure(_ role: PeerRole) -> PeerWireError? {
        for case .fail(let error, _) in role == .initiator ? initiatorEvents : responderEvents { return error }
        return nil
    }

    var wireNames: [String] { wire.map { "\($0.0 == .initiator ? "I" : "R"):\($0.1.name)" } }
}
