import Crypto

extension PeerHandshake {
    /// A control message arrived; `size` is its encoded length.
    public mutating func received(
        _ message: PeerControlMessage,
        size: Int,
        now: ContinuousClock.Instant
    ) -> [Action] {
        if case .close(let reason) = message, state != .closed {
            return fail(.closedByPeer(reason: reason), notify: nil)
        }
        if let error = checkSize(of: message, size: size) { return fail(error) }
        switch (state, message) {
        case (.awaitingHello, .hello(let hello)):
            return receivedHello(hello, now: now)
        case (.awaitingRequest, .connectRequest(let request)) where role == .responder:
            return receivedRequest(request, now: now)
        case (.awaitingNonce, .sasNonce(let nonce)) where role == .initiator:
            return receivedNonce(nonce, now: now)
        case (.awaitingReveal(let request, let bytes), .sasReveal(let nonce)) where role == .responder:
            return receivedReveal(nonce, request: request, requestBytes: bytes, now: now)
        case (.deciding(let decisions), .decision(let decision)) where !decisions.remote:
            return receivedDecision(decision, decisions: decisions)
        case (.deciding(var decisions), .keyShare(let share))
        where decisions.local && decisions.remote && decisions.remoteKeyShare == nil:
            decisions.remoteKeyShare = share
            return advance(decisions)
        default:
            return fail(violation(message))
        }
    }

    /// Application data arrived: legal only once connected (`docs/security.md` §3.4).
    public mutating func receivedApplicationData() -> [Action] {
        guard state == .connected else {
            return fail(.protocolViolation(state: stateName, message: "application data"))
        }
        return []
    }

    /// The user or the policy decided the prompt.
    public mutating func decide(accept: Bool, now: ContinuousClock.Instant) -> [Action] {
        guard case .deciding(var decisions) = state, !decisions.local else { return [] }
        let confirmation = decisions.sas?.confirmation(role: role, transcript: decisions.transcript) ?? []
        guard accept else {
            state = .closed
            return [
                .send(.decision(PeerDecision(accept: false, reason: .denied, confirmation: []))),
                .fail(.pairingRejected(reason: .denied), notify: nil),
            ]
        }
        decisions.local = true
        let send = Action.send(.decision(PeerDecision(accept: true, reason: .goodbye, confirmation: confirmation)))
        return [send] + advance(decisions)
    }

    /// The deadline passed: fail if the step it guards is still unfinished.
    public mutating func deadlinePassed(now: ContinuousClock.Instant) -> [Action] {
        guard now >= deadline else { return [] }
        switch state {
        case .connected, .closed:
            return []
        case .deciding:
            return fail(.pairingTimedOut, notify: .timedOut)
        default:
            return fail(.handshakeTimedOut(state: stateName), notify: .timedOut)
        }
    }

    private mutating func checkSize(of message: PeerControlMessage, size: Int) -> PeerWireError? {
        guard state != .connected else { return nil }
        if case .hello = message {
            let limit = configuration.maximumHelloSize
            return size > limit ? .frameTooLarge(limit: limit, declared: size) : nil
        }
        let limit = configuration.maximumPreAcceptanceMessageSize
        if size > limit { return .frameTooLarge(limit: limit, declared: size) }
        preAcceptanceBytes += size
        let total = configuration.maximumPreAcceptanceTotal
        return preAcceptanceBytes > total ? .frameTooLarge(limit: total, declared: preAcceptanceBytes) : nil
    }

    private mutating func receivedHello(_ hello: PeerHello, now: ContinuousClock.Instant) -> [Action] {
        let instanceSize = hello.instance.utf8.count
        guard (1...configuration.maximumInstanceSize).contains(instanceSize) else {
            return fail(
                .malformedMessage("HELLO instance of \(instanceSize) bytes (1 to \(configuration.maximumInstanceSize))")
            )
        }
        guard hello.sessionType == localHello.sessionType else {
            return fail(.sessionMismatch(ours: localHello.sessionType, theirs: hello.sessionType), notify: .refused)
        }
        let ours = configuration.versions
        guard ours.overlaps(hello.versions) else {
            return fail(.protocolMismatch(ours: ours, theirs: hello.versions), notify: .refused)
        }
        version = min(ours.upperBound, hello.versions.upperBound)
        if case .pinned(let seen) = trust, version < seen {
            return fail(.protocolDowngrade(pinned: seen, offered: version), notify: .refused)
        }
        peerHello = hello
        guard role == .initiator else {
            state = .awaitingRequest
            return []
        }
        if purpose == .introduction {
            state = .closed
            return [.introduced(hello, version: version)]
        }
        if case .linkPairing(let secret) = purpose { return sendLinkRequest(secret: secret, now: now) }
        guard trust == .unknown else {
            let request = PeerControlMessage.connectRequest(
                PeerConnectRequest(pairing: false, commitment: [], context: context)
            )
            requestBytes = request.encoded()
            // Dialling a pinned peer is the initiator's decision; the responder decides next.
            enterDeciding(Decisions(local: true, remote: false, transcript: transcript()), now: now)
            return [.send(request)]
        }
        state = .awaitingPairingRun(request: nil, requestBytes: [])
        return [.openPairingRun]
    }

    /// The pairing budget answered ``Action/openPairingRun``: `refusal` is `nil` when the run was granted.
    public mutating func pairingRun(refusal: PairingBudget.Refusal?, now: ContinuousClock.Instant) -> [Action] {
        guard case .awaitingPairingRun(let request, let bytes) = state else { return [] }
        if let refusal {
            let reason: PeerCloseReason = if case .paused = refusal { .pairingPaused } else { .pairingBusy }
            return fail(.pairingRefused(reason: reason), notify: reason)
        }
        guard role == .initiator else {
            state = .awaitingReveal(request: request!, requestBytes: bytes)
            return [.send(.sasNonce(secrets.nonce))]
        }
        let commitment = ShortAuthenticationString.commitment(
            initiatorFingerprint: localFingerprint,
            responderFingerprint: remoteFingerprint,
            initiatorNonce: secrets.nonce
        )
        let message = PeerControlMessage.connectRequest(
            PeerConnectRequest(pairing: true, commitment: commitment, context: context)
        )
        requestBytes = message.encoded()
        state = .awaitingNonce
        return [.send(message)]
    }

    private mutating func receivedRequest(_ request: PeerConnectRequest, now: ContinuousClock.Instant) -> [Action] {
        guard request.context.count <= configuration.maximumContextSize else {
            return fail(.frameTooLarge(limit: configuration.maximumContextSize, declared: request.context.count))
        }
        let bytes = PeerControlMessage.connectRequest(request).encoded()
        if request.link {
            state = .awaitingLinkCheck(request: request, requestBytes: bytes)
            return [.checkPairingLink(proof: request.commitment, binding: linkBinding())]
        }
        guard request.pairing else {
            guard trust != .unknown else {
                state = .closed
                let decision = PeerDecision(accept: false, reason: .pairingRequired, confirmation: [])
                return [.send(.decision(decision)), .fail(.pairingRejected(reason: .pairingRequired), notify: nil)]
            }
            requestBytes = bytes
            let decisions = Decisions(local: false, remote: true, transcript: transcript())
            enterDeciding(decisions, now: now)
            return [.prompt(Prompt(code: nil, peerHello: peerHello!, context: request.context))]
        }
        state = .awaitingPairingRun(request: request, requestBytes: bytes)
        return [.openPairingRun]
    }

    /// The initiator's request with a pairing link: the proof in place of a commitment; dialling with the link is
    /// its decision.
    private mutating func sendLinkRequest(secret: [UInt8], now: ContinuousClock.Instant) -> [Action] {
        let proof = PairingLinkProof.proof(secret: secret, binding: linkBinding())
        let request = PeerControlMessage.connectRequest(
            PeerConnectRequest(pairing: false, link: true, commitment: proof, context: context)
        )
        requestBytes = request.encoded()
        var decisions = Decisions(local: true, remote: false, transcript: transcript())
        decisions.linked = true
        enterDeciding(decisions, now: now)
        return [.send(request)]
    }

    /// The issued links answered ``Action/checkPairingLink(proof:binding:)``: a valid proof is asked about as
    /// accepted already (``Prompt/pairingLink``); any other is refused with DECISION `linkRefused`.
    public mutating func linkChecked(valid: Bool, now: ContinuousClock.Instant) -> [Action] {
        guard case .awaitingLinkCheck(let request, let bytes) = state else { return [] }
        guard valid else {
            state = .closed
            let decision = PeerDecision(accept: false, reason: .linkRefused, confirmation: [])
            return [.send(.decision(decision)), .fail(.pairingRejected(reason: .linkRefused), notify: nil)]
        }
        requestBytes = bytes
        var decisions = Decisions(local: false, remote: true, transcript: transcript())
        decisions.linked = true
        enterDeciding(decisions, now: now)
        var prompt = Prompt(code: nil, peerHello: peerHello!, context: request.context)
        prompt.pairingLink = true
        return [.prompt(prompt)]
    }

    /// What a pairing link's proof signs on this connection (``PairingLinkProof/binding(initiatorFingerprint:responderFingerprint:initiatorHello:responderHello:)``).
    private func linkBinding() -> [UInt8] {
        let (helloI, helloR) = encodedHellos()
        return PairingLinkProof.binding(
            initiatorFingerprint: initiatorFingerprint,
            responderFingerprint: responderFingerprint,
            initiatorHello: helloI,
            responderHello: helloR
        )
    }

    private mutating func receivedNonce(_ responderNonce: [UInt8], now: ContinuousClock.Instant) -> [Action] {
        let sas = makeSAS(initiatorNonce: secrets.nonce, responderNonce: responderNonce)
        var decisions = Decisions(
            local: false,
            remote: false,
            transcript: transcript(initiatorNonce: secrets.nonce, responderNonce: responderNonce)
        )
        decisions.sas = sas
        enterDeciding(decisions, now: now)
        return [.send(.sasReveal(secrets.nonce)), .prompt(Prompt(code: sas, peerHello: peerHello!, context: []))]
    }

    private mutating func receivedReveal(
        _ initiatorNonce: [UInt8],
        request: PeerConnectRequest,
        requestBytes bytes: [UInt8],
        now: ContinuousClock.Instant
    ) -> [Action] {
        let expected = ShortAuthenticationString.commitment(
            initiatorFingerprint: remoteFingerprint,
            responderFingerprint: localFingerprint,
            initiatorNonce: initiatorNonce
        )
        guard expected == request.commitment else { return fail(.sasCommitmentMismatch) }
        requestBytes = bytes
        let sas = makeSAS(initiatorNonce: initiatorNonce, responderNonce: secrets.nonce)
        var decisions = Decisions(
            local: false,
            remote: false,
            transcript: transcript(initiatorNonce: initiatorNonce, responderNonce: secrets.nonce)
        )
        decisions.sas = sas
        enterDeciding(decisions, now: now)
        return [.prompt(Prompt(code: sas, peerHello: peerHello!, context: request.context))]
    }

    private mutating func receivedDecision(_ decision: PeerDecision, decisions: Decisions) -> [Action] {
        guard decision.accept else {
            return fail(.pairingRejected(reason: decision.reason), notify: nil)
        }
        if let sas = decisions.sas {
            guard sas.isValidConfirmation(decision.confirmation, role: role.other, transcript: decisions.transcript)
            else { return fail(.confirmationMismatch) }
        } else if !decision.confirmation.isEmpty {
            return fail(.confirmationMismatch)
        }
        var decisions = decisions
        decisions.remote = true
        return advance(decisions)
    }

    /// Sends our key share once both accepted, and finishes once both shares are known.
    private mutating func advance(_ decisions: Decisions) -> [Action] {
        var decisions = decisions
        var actions: [Action] = []
        if decisions.local && decisions.remote && !decisions.sentKeyShare {
            decisions.sentKeyShare = true
            actions.append(.send(.keyShare(secrets.keyShare)))
        }
        guard decisions.sentKeyShare, let remoteShare = decisions.remoteKeyShare else {
            state = .deciding(decisions)
            return actions
        }
        state = .connected
        let outcome = Outcome(
            peerHello: peerHello!,
            version: version,
            pairedWithCode: decisions.sas != nil,
            pairedWithLink: decisions.linked,
            transcript: decisions.transcript,
            initiatorKeyShare: role == .initiator ? secrets.keyShare : remoteShare,
            responderKeyShare: role == .initiator ? remoteShare : secrets.keyShare
        )
        return actions + [.connected(outcome)]
    }

    private mutating func enterDeciding(_ decisions: Decisions, now: ContinuousClock.Instant) {
        state = .deciding(decisions)
        let timeout = decisions.sas == nil ? configuration.decisionTimeout : configuration.pairingDecisionTimeout
        deadline = now + timeout
    }

    private func makeSAS(initiatorNonce: [UInt8], responderNonce: [UInt8]) -> ShortAuthenticationString {
        let (helloI, helloR) = encodedHellos()
        return ShortAuthenticationString(
            initiatorNonce: initiatorNonce,
            responderNonce: responderNonce,
            initiatorHello: helloI,
            responderHello: helloR,
            initiatorFingerprint: initiatorFingerprint,
            responderFingerprint: responderFingerprint
        )
    }

    private func encodedHellos() -> (initiator: [UInt8], responder: [UInt8]) {
        let local = PeerControlMessage.hello(localHello).encoded()
        let remote = PeerControlMessage.hello(peerHello!).encoded()
        return role == .initiator ? (local, remote) : (remote, local)
    }

    /// SHA-256(HELLO_I ‖ HELLO_R ‖ CONNECT_REQUEST ‖ n_R ‖ n_I); the nonces only at first contact.
    private func transcript(initiatorNonce: [UInt8] = [], responderNonce: [UInt8] = []) -> [UInt8] {
        let (helloI, helloR) = encodedHellos()
        var hash = SHA256()
        hash.update(data: helloI)
        hash.update(data: helloR)
        hash.update(data: requestBytes)
        hash.update(data: responderNonce)
        hash.update(data: initiatorNonce)
        return Array(hash.finalize())
    }
}
