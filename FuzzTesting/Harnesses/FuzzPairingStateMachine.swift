import HuddleWire
import NIOCore

/// Byte scripts → the handshake state machine under attack, one side of a pairing run against an honest peer whose
/// messages the script delivers, mutates, replays or replaces (docs/security.md §3.4, §3.5, §5 A3).
///
/// Input: `setup (1) | op (1) [operand…] …`. Setup bit 0 picks the role under attack (initiator or responder), bit
/// 1 first contact (pairing with a code) or a pinned peer. Ops (low 3 bits): deliver the honest peer's next message;
/// deliver a message decoded from the next `length (1)` bytes; deliver the next honest message with one byte
/// XORed (`position (1) | mask (1)`); the local user accepts; denies; the peer's user accepts; the deadline passes;
/// replay an earlier honest message (`index (1)`). Clock and secrets are fixed, so every input replays exactly.
///
/// Checked after every step: on first contact the side under attack connects only if its user accepted, the peer's
/// user accepted, and it received an accepting DECISION carrying the peer's own confirmation (keyed by the code's
/// secret, so nobody else can make one; the reason field of an accept means nothing and may differ); a pinned
/// responder connects only if its user accepted; it connects at most once and prompts at most once, with a code
/// exactly on first contact; once closed it never sends or connects again.
public func fuzzPairingStateMachine(_ input: UnsafeRawBufferPointer) throws(FuzzInvariantViolation) {
    guard let setup = input.first else { return }
    var run = try PairingRun(setup: setup)
    var offset = 1
    func next() -> UInt8? {
        guard offset < input.count else { return nil }
        defer { offset += 1 }
        return input[offset]
    }
    while let op = next() {
        switch op & 7 {
        case 0:
            if !run.inbox.isEmpty { try run.deliver(run.inbox.removeFirst()) }
        case 1:
            let length = Int(next() ?? 0)
            let end = min(input.count, offset + length)
            let bytes = ByteBuffer(bytes: UnsafeRawBufferPointer(rebasing: input[offset..<end]))
            offset = end
            if let message = try? PeerControlMessage(decoding: bytes) { try run.deliver(message) }
        case 2:
            let position = Int(next() ?? 0)
            let mask = next() ?? 0xFF
            guard !run.inbox.isEmpty else { continue }
            var bytes = run.inbox.removeFirst().encoded()
            bytes[position % bytes.count] ^= mask
            if let message = try? PeerControlMessage(decoding: ByteBuffer(bytes: bytes)) { try run.deliver(message) }
        case 3:
            if run.target.isConnected || run.target.isClosed || run.prompts == 0 { continue }
            run.localAccepted = true
            try run.step { machine, now in machine.decide(accept: true, now: now) }
        case 4:
            try run.step { machine, now in machine.decide(accept: false, now: now) }
        case 5:
            guard !run.honest.isClosed else { continue }
            run.honestAccepted = true
            run.takeFromHonest(run.honest.decide(accept: true, now: run.now))
        case 6:
            try run.step { machine, now in machine.deadlinePassed(now: now + .seconds(61)) }
        default:
            let index = Int(next() ?? 0)
            if !run.history.isEmpty { try run.deliver(run.history[index % run.history.count]) }
        }
    }
}

/// One pairing run: the side under attack, the honest peer, and what the checks need to know of the run so far.
private struct PairingRun {
    var target: PeerHandshake
    var honest: PeerHandshake
    let pairing: Bool
    let now: ContinuousClock.Instant
    var inbox: [PeerControlMessage] = []  // honest → target, not delivered yet
    var history: [PeerControlMessage] = []  // honest → target, every message so far
    var honestConfirmations: Set<[UInt8]> = []  // the confirmations of the accepting DECISIONs the honest side sent
    var receivedHonestAccept = false
    var receivedAnyAccept = false
    var localAccepted = false
    var honestAccepted = false
    var prompts = 0
    /// Set once the target charged its pairing run; a nonce or a commitment before it is a bug.
    var runGranted = false
    var connections = 0

    init(setup: UInt8) throws(FuzzInvariantViolation) {
        let now = ContinuousClock.Instant.now
        self.now = now
        let targetRole: PeerRole = setup & 1 == 0 ? .initiator : .responder
        pairing = setup & 2 == 0
        let trust: PeerHandshake.Trust = pairing ? .unknown : .pinned(maximumVersionSeen: 1)
        target = Self.machine(targetRole, trust: trust, seed: 1, now: now)
        honest = Self.machine(targetRole == .initiator ? .responder : .initiator, trust: trust, seed: 2, now: now)
        takeFromHonest(honest.start())
        try step { machine, _ in machine.start() }
    }

    /// One side of the run: fixed names, fingerprints and secrets.
    static func machine(
        _ role: PeerRole,
        trust: PeerHandshake.Trust,
        seed: UInt8,
        now: ContinuousClock.Instant
    ) -> PeerHandshake {
        let name = role == .initiator ? "Ada" : "Bob"
        return PeerHandshake(
            role: role,
            localHello: PeerHello(
                versions: 2...2,
                sessionType: "_fuzz._tcp",
                instance: name.lowercased(),
                displayName: name,
                mode: 0x70
            ),
            localFingerprint: Array(repeating: role == .initiator ? 0x11 : 0x22, count: 32),
            remoteFingerprint: Array(repeating: role == .initiator ? 0x22 : 0x11, count: 32),
            trust: trust,
            context: role == .initiator ? Array("hi".utf8) : [],
            secrets: .init(
                nonce: Array(repeating: seed, count: 32),
                keyShare: Array(repeating: seed &+ 1, count: 32)
            ),
            now: now
        )
    }

    /// Queues what the honest side sends for the target; notes its accepting decisions.
    mutating func takeFromHonest(_ actions: [PeerHandshake.Action]) {
        if actions.contains(.openPairingRun) { takeFromHonest(honest.pairingRun(refusal: nil, now: now)) }
        for case .send(let message) in actions {
            if case .decision(let decision) = message, decision.accept {
                honestConfirmations.insert(decision.confirmation)
            }
            inbox.append(message)
            history.append(message)
        }
    }

    /// Runs one call on the target, hands what it sends to the honest side (which is never attacked) and checks
    /// the target.
    mutating func step(
        _ call: (inout PeerHandshake, ContinuousClock.Instant) -> [PeerHandshake.Action]
    ) throws(FuzzInvariantViolation) {
        let wasClosed = target.isClosed
        let actions = call(&target, now)
        for action in actions {
            switch action {
            case .send(let message):
                try require(!wasClosed, "a closed handshake sent \(message.name)")
                if case .sasNonce = message { try require(runGranted, "a nonce sent without a pairing run charged") }
                if case .connectRequest(let request) = message, request.pairing {
                    try require(runGranted, "a commitment sent without a pairing run charged")
                }
                guard !honest.isClosed else { continue }
                takeFromHonest(honest.received(message, size: message.encoded().count, now: now))
            case .prompt(let prompt):
                prompts += 1
                try require(prompts == 1, "prompted twice")
                try require((prompt.code != nil) == pairing, "a code exactly on first contact")
            case .connected(let outcome):
                connections += 1
                try require(connections == 1, "connected twice")
                try require(!wasClosed, "a closed handshake connected")
                try require(outcome.pairedWithCode == pairing, "pairedWithCode on a pinned peer, or not on pairing")
            case .fail:
                break
            case .checkPairingLink:
                // The fuzzer holds no link secret: every proof it can send is refused.
                try step { machine, now in machine.linkChecked(valid: false, now: now) }
            case .introduced:
                // The fuzzed handshakes all connect; an introduction is only ever asked for by the initiator.
                try require(false, "an introduction from a handshake set up to connect")
            case .openPairingRun:
                try require(!runGranted, "a second pairing run on one connection")
                runGranted = true
                try step { machine, now in machine.pairingRun(refusal: nil, now: now) }
            }
        }
        guard target.isConnected else { return }
        if pairing {
            try require(localAccepted, "connected on first contact without the local user's accept")
            try require(honestAccepted && receivedHonestAccept, "connected without the peer's own accept")
        } else if target.role == .responder {
            try require(localAccepted, "a pinned responder connected without its user's accept")
        } else {
            try require(receivedAnyAccept, "a pinned initiator connected without an accepting DECISION")
        }
    }

    /// Delivers one message to the target.
    mutating func deliver(_ message: PeerControlMessage) throws(FuzzInvariantViolation) {
        if case .decision(let decision) = message, decision.accept {
            receivedAnyAccept = true
            if !decision.confirmation.isEmpty, honestConfirmations.contains(decision.confirmation) {
                receivedHonestAccept = true
            }
        }
        try step { machine, now in machine.received(message, size: message.encoded().count, now: now) }
    }
}
