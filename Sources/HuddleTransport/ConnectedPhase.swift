import HuddleWire
import NIOCore

/// The rules of a connection after its handshake, without I/O (`docs/wire-protocol.md` §6): the heartbeat, the
/// PING limit, the empty-frame limit, sequence numbers of reliable messages with ACK and RESUME, and the wait for
/// the peer's last ACK after a goodbye.
///
/// ``PeerConnectionHandler`` feeds it what happens, with its event loop's time, and carries out what it returns;
/// it reads no clock and writes nothing itself, so every rule is tested with plain instants.
struct ConnectedPhase {
    let configuration: PeerConnectionConfiguration

    /// When the peer was last heard from (any frame).
    private(set) var lastHeard: ContinuousClock.Instant
    private var pingsSent: UInt64 = 0
    private var pingOutstanding = false
    /// PINGs received in the second that started at `pingWindowStart`.
    private var pingsInWindow = 0
    private var pingWindowStart: ContinuousClock.Instant
    /// Data frames received that carried nothing.
    private var emptyFrames = 0

    /// The sequence number of the next reliable message written.
    private(set) var outgoingSequence: UInt64 = 0
    /// Reliable messages written and not yet acknowledged: the last `unacknowledged.count` numbers.
    private(set) var unacknowledged = CircularBuffer<ByteBuffer>()
    private var unacknowledgedBytes = 0
    /// The sequence number of the next reliable message expected from the peer.
    private(set) var incomingSequence: UInt64 = 0
    private var sentResume = false
    private var heardResume = false
    private var receivedMessages = false
    private var acknowledgementPending = false
    /// A goodbye went out and the connection waits for the peer's last ACK before closing.
    private(set) var closingAfterGoodbye = false

    init(configuration: PeerConnectionConfiguration, now: ContinuousClock.Instant) {
        self.configuration = configuration
        lastHeard = now
        pingWindowStart = now
    }

    // MARK: Heartbeat and PING limit

    /// Silence after which a PING goes out: `pingAfter`, or a third of `disconnectTimeout` when that is shorter,
    /// so that a short timeout still sees a PING and its answer before it passes.
    var pingInterval: Duration { min(configuration.pingAfter, configuration.disconnectTimeout / 3) }

    /// How often ``heartbeat(now:)`` wants to run while connected.
    var heartbeatInterval: Duration { min(.seconds(1), pingInterval) }

    enum HeartbeatAction: Equatable {
        case wait
        case sendPing(UInt64)
        /// Silent for the disconnect timeout: send CLOSE `unresponsive` and close.
        case closeUnresponsive
    }

    /// A frame arrived.
    mutating func heard(now: ContinuousClock.Instant) {
        lastHeard = now
    }

    /// The heartbeat timer fired: a PING after ``pingInterval`` of silence (one outstanding at a time), the end
    /// after `disconnectTimeout`.
    mutating func heartbeat(now: ContinuousClock.Instant) -> HeartbeatAction {
        let silence = lastHeard.duration(to: now)
        if silence >= configuration.disconnectTimeout { return .closeUnresponsive }
        guard silence >= pingInterval, !pingOutstanding else { return .wait }
        pingOutstanding = true
        pingsSent += 1
        return .sendPing(pingsSent)
    }

    enum PingAction: Equatable {
        case sendPong(UInt64)
        case fail(PeerWireError)
    }

    /// A PING arrived: answered, unless it is one too many within a second (a flood).
    mutating func receivedPing(_ value: UInt64, now: ContinuousClock.Instant) -> PingAction {
        if pingWindowStart.duration(to: now) >= .seconds(1) {
            pingWindowStart = now
            pingsInWindow = 0
        }
        pingsInWindow += 1
        let limit = configuration.maximumPingsPerSecond
        guard pingsInWindow <= limit else {
            return .fail(.protocolViolation(state: "connected", message: "PING flood (over \(limit) a second)"))
        }
        return .sendPong(value)
    }

    mutating func receivedPong() {
        pingOutstanding = false
    }

    /// A data frame that carried nothing and ended no message arrived; an error past the limit.
    mutating func receivedEmptyFrame() -> PeerWireError? {
        emptyFrames += 1
        let limit = configuration.maximumEmptyFrames
        guard emptyFrames > limit else { return nil }
        return .protocolViolation(state: "connected", message: "over \(limit) empty frames")
    }

    // MARK: Reliable messages

    /// Whether RESUME may still be sent: once, before any reliable message went out.
    var canResume: Bool { !sentResume && outgoingSequence == 0 }

    /// RESUME goes out: the reliable messages that follow are numbered from `first` on.
    mutating func resume(from first: UInt64) {
        sentResume = true
        outgoingSequence = first
    }

    /// A reliable message was written: it is kept until acknowledged; an error when more is kept than allowed.
    mutating func retain(_ message: ByteBuffer) -> PeerWireError? {
        outgoingSequence &+= 1
        unacknowledged.append(message)
        unacknowledgedBytes += message.readableBytes
        let limit = configuration.maximumUnacknowledgedBytes
        guard unacknowledgedBytes > limit else { return nil }
        return .protocolViolation(state: "connected", message: "over \(limit) bytes of messages not acknowledged")
    }

    enum AcknowledgementAction: Equatable {
        case none
        /// The goodbye's wait is over: everything was acknowledged.
        case close
        case fail(PeerWireError)
    }

    /// ACK: the peer has every message numbered below `sequence`. Acknowledging more than was sent is a lie.
    mutating func receivedAcknowledgement(through sequence: UInt64) -> AcknowledgementAction {
        guard sequence <= outgoingSequence else {
            return .fail(
                .protocolViolation(state: "connected", message: "ACK of \(sequence) beyond \(outgoingSequence)")
            )
        }
        var first = outgoingSequence - UInt64(unacknowledged.count)
        while first < sequence, let message = unacknowledged.popFirst() {
            unacknowledgedBytes -= message.readableBytes
            first += 1
        }
        return closingAfterGoodbye && unacknowledged.isEmpty ? .close : .none
    }

    /// RESUME from the peer: its messages are numbered from `sequence` on. Only once, before its first message,
    /// and below 2⁴⁸ (no session sends that many; a larger number would make later messages look like
    /// duplicates).
    mutating func receivedResume(_ sequence: UInt64) -> PeerWireError? {
        guard !heardResume, !receivedMessages else {
            return .protocolViolation(state: "connected", message: "RESUME after messages")
        }
        guard sequence < PeerConnectionConfiguration.sequenceLimit else {
            return .protocolViolation(state: "connected", message: "RESUME beyond any message sent")
        }
        heardResume = true
        incomingSequence = sequence
        return nil
    }

    /// A whole reliable message arrived.
    mutating func receivedMessage() {
        receivedMessages = true
        incomingSequence &+= 1
        acknowledgementPending = true
    }

    /// Whether messages arrived since the last ACK.
    var owesAcknowledgement: Bool { acknowledgementPending }

    /// The cumulative ACK to send, when messages arrived since the last one.
    mutating func takeAcknowledgement() -> UInt64? {
        guard acknowledgementPending else { return nil }
        acknowledgementPending = false
        return incomingSequence
    }

    // MARK: Goodbye

    enum GoodbyeAction: Equatable {
        case close
        /// Wait at most this long for the peer's ACK of what is still unacknowledged, then close.
        case waitForAcknowledgement(Duration)
    }

    /// CLOSE went out with `reason`: a goodbye with messages still unacknowledged waits for the peer's last ACK,
    /// so that what it read is not reported lost; anything else closes at once.
    mutating func sentClose(_ reason: PeerCloseReason) -> GoodbyeAction {
        guard reason == .goodbye, !unacknowledged.isEmpty else { return .close }
        closingAfterGoodbye = true
        return .waitForAcknowledgement(configuration.goodbyeAcknowledgementTimeout)
    }
}
