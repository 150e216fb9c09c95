/// The connection state machine from TLS to `connected` (`docs/security.md` §3.4, §3.5): HELLO both ways, then the
/// initiator's CONNECT_REQUEST, the pairing exchange at first contact (commitment, nonce, reveal, code), both
/// decisions, and the key shares for datagrams.
///
/// Pure: it never reads a clock or a random generator. Time comes in as `now`, randomness in `Secrets`, and what
/// to do comes back as `Action`s for the connection to carry out. Before `connected`, any message that is not the
/// next legal one, any oversized message, and any application data close the connection with a typed error.
public struct PeerHandshake: Sendable {
    /// The random values of one handshake, made by the caller from a secure generator.
    public struct Secrets: Sendable {
        /// n_I or n_R: 32 bytes.
        public var nonce: [UInt8]
        /// s_I or s_R: 32 bytes.
        public var keyShare: [UInt8]

        public init(nonce: [UInt8], keyShare: [UInt8]) {
            precondition(nonce.count == 32 && keyShare.count == 32, "handshake secrets are 32 bytes each")
            self.nonce = nonce
            self.keyShare = keyShare
        }
    }

    /// What this side knew of the peer's key when TLS completed.
    public enum Trust: Hashable, Sendable {
        /// No pin: first contact, pairing with the code.
        case unknown
        /// Pinned, with the highest protocol version seen from it.
        case pinned(maximumVersionSeen: UInt8)
    }

    /// A decision the user (or the application's policy) must make.
    public struct Prompt: Hashable, Sendable {
        /// The code to compare at first contact, `nil` for a pinned peer.
        public var code: ShortAuthenticationString?
        /// The peer's HELLO.
        public var peerHello: PeerHello
        /// The initiator's context payload (empty on the initiator's own prompt).
        public var context: [UInt8]
        /// Set on the responder when the initiator proved a pairing link this side issued: accept without asking
        /// (issuing the link was the user's decision).
        public var pairingLink = false
    }

    /// What the handshake agreed when both sides accepted.
    public struct Outcome: Hashable, Sendable {
        public var peerHello: PeerHello
        public var version: UInt8
        /// Set when the users compared the code: pin the key as verified.
        public var pairedWithCode: Bool
        /// Set when a pairing link authenticated the run: pin the key as verified.
        public var pairedWithLink = false
        /// SHA-256 over the HELLOs, the request and the pairing nonces: the salt of the datagram keys.
        public var transcript: [UInt8]
        public var initiatorKeyShare: [UInt8]
        public var responderKeyShare: [UInt8]
    }

    /// Why the initiator dialled.
    public enum Purpose: Hashable, Sendable {
        /// To connect: the whole handshake.
        case connect
        /// Only to learn who answers at an address: the initiator reads the responder's HELLO, reports it with
        /// ``Action/introduced(_:version:)`` and says goodbye before any request (`docs/wire-protocol.md` §5.7).
        /// Nothing is asked, charged or pinned on either side.
        case introduction
        /// To pair with a pairing link the responder issued: the request carries the link's proof
        /// (``PairingLinkProof``) instead of a commitment, no code is shown, and both sides pin the other as
        /// verified (`docs/wire-protocol.md` §5.8).
        case linkPairing(secret: [UInt8])
    }

    public enum Action: Hashable, Sendable {
        case send(PeerControlMessage)
        /// An introduction is done: the responder's HELLO (its session type checked, its versions overlapping
        /// ours) and the version the two would use. Close the connection with CLOSE `goodbye`.
        case introduced(PeerHello, version: UInt8)
        /// Ask the user; answer with `decide(accept:now:)`.
        case prompt(Prompt)
        case connected(Outcome)
        /// Close the connection, after sending `DECISION`/`CLOSE` with `reason` when there is one.
        case fail(PeerWireError, notify: PeerCloseReason?)
        /// A pairing run is about to start: charge the pairing budget (``PairingBudget``) and answer with
        /// ``PeerHandshake/pairingRun(granted:now:)`` before anything else. Nothing that lets the peer compute the
        /// code (the responder's nonce) or commits this side (the initiator's commitment) leaves before that.
        case openPairingRun
        /// The initiator sent a pairing link's proof: ask the links this side issued (``PairingLinkBook``) whether
        /// it is one of theirs over `binding`, and answer with ``PeerHandshake/linkChecked(valid:now:)``.
        case checkPairingLink(proof: [UInt8], binding: [UInt8])
    }

    enum State: Hashable, Sendable {
        case awaitingHello
        case awaitingRequest
        /// Waiting for the pairing budget's answer before sending the commitment (initiator) or the nonce
        /// (responder, with the request it answers).
        case awaitingPairingRun(request: PeerConnectRequest?, requestBytes: [UInt8])
        case awaitingNonce
        /// The responder waits for its links' answer about the request's proof.
        case awaitingLinkCheck(request: PeerConnectRequest, requestBytes: [UInt8])
        case awaitingReveal(request: PeerConnectRequest, requestBytes: [UInt8])
        case deciding(Decisions)
        case connected
        case closed
    }

    struct Decisions: Hashable, Sendable {
        var local: Bool
        var remote: Bool
        var sentKeyShare = false
        var remoteKeyShare: [UInt8]?
        var sas: ShortAuthenticationString?
        var transcript: [UInt8]
        /// A pairing link authenticated the run.
        var linked = false
    }

    public let role: PeerRole
    public let purpose: Purpose
    public let configuration: PeerHandshakeConfiguration
    let localHello: PeerHello
    let localFingerprint: [UInt8]
    let remoteFingerprint: [UInt8]
    let trust: Trust
    let context: [UInt8]
    let secrets: Secrets
    var state: State = .awaitingHello
    var peerHello: PeerHello?
    var version: UInt8 = 0
    var requestBytes: [UInt8] = []
    var preAcceptanceBytes = 0
    /// When the current step times out; the connection schedules a call to `deadlinePassed(now:)` for it.
    public internal(set) var deadline: ContinuousClock.Instant

    /// - Parameters:
    ///   - context: the initiator's context payload (at most `maximumContextSize`); ignored by the responder.
    ///   - purpose: the initiator's: a connection, or only an introduction; ignored by the responder.
    public init(
        role: PeerRole,
        purpose: Purpose = .connect,
        localHello: PeerHello,
        localFingerprint: [UInt8],
        remoteFingerprint: [UInt8],
        trust: Trust,
        context: [UInt8] = [],
        secrets: Secrets,
        now: ContinuousClock.Instant,
        configuration: PeerHandshakeConfiguration = .init()
    ) {
        precondition(context.count <= configuration.maximumContextSize, "context payload over the limit")
        self.role = role
        self.purpose = role == .initiator ? purpose : .connect
        self.localHello = localHello
        self.localFingerprint = localFingerprint
        self.remoteFingerprint = remoteFingerprint
        self.trust = trust
        self.context = context
        self.secrets = secrets
        self.configuration = configuration
        self.deadline = now + configuration.helloTimeout
    }

    /// Set once both sides accepted and exchanged key shares.
    public var isConnected: Bool { state == .connected }
    /// Set after a failure or a decision to close.
    public var isClosed: Bool { state == .closed }

    /// The first action: send our HELLO.
    public mutating func start() -> [Action] {
        [.send(.hello(localHello))]
    }

    var initiatorFingerprint: [UInt8] { role == .initiator ? localFingerprint : remoteFingerprint }
    var responderFingerprint: [UInt8] { role == .initiator ? remoteFingerprint : localFingerprint }

    var stateName: String {
        switch state {
        case .awaitingHello: "awaiting HELLO"
        case .awaitingRequest: "awaiting CONNECT_REQUEST"
        case .awaitingPairingRun: "awaiting the pairing budget"
        case .awaitingNonce: "awaiting SAS_NONCE"
        case .awaitingLinkCheck: "checking the pairing link"
        case .awaitingReveal: "awaiting SAS_REVEAL"
        case .deciding: "deciding"
        case .connected: "connected"
        case .closed: "closed"
        }
    }

    mutating func fail(_ error: PeerWireError, notify: PeerCloseReason? = .protocolError) -> [Action] {
        state = .closed
        return [.fail(error, notify: notify)]
    }

    func violation(_ message: PeerControlMessage) -> PeerWireError {
        .protocolViolation(state: stateName, message: message.name)
    }
}
