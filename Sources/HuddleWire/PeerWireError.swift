/// Everything that can go wrong on the peer wire, each a distinct case so callers can react to it
/// (`docs/security.md` §3.9: error types are explicit and stable).
public enum PeerWireError: Error, Hashable, Sendable {
    /// A frame declared a payload longer than the limit; rejected before anything was allocated.
    case frameTooLarge(limit: Int, declared: Int)
    /// The connection ended in the middle of a frame.
    case truncatedFrame
    /// A frame header carried an unknown version.
    case unsupportedFrameVersion(UInt8)
    /// A control message could not be parsed.
    case malformedMessage(String)
    /// A reassembled application message grew past the configured maximum.
    case messageTooLarge(limit: Int, declared: Int)
    /// A message arrived that is not legal in the current state.
    case protocolViolation(state: String, message: String)
    /// The peer speaks no protocol version we speak.
    case protocolMismatch(ours: ClosedRange<UInt8>, theirs: ClosedRange<UInt8>)
    /// The peer belongs to another session (its HELLO names another service type).
    case sessionMismatch(ours: String, theirs: String)
    /// A pinned peer announced a lower protocol version than it had before (`docs/security.md` §3.4).
    case protocolDowngrade(pinned: UInt8, offered: UInt8)
    /// The revealed pairing nonce does not match the initiator's commitment (`docs/security.md` §3.5 step 3).
    case sasCommitmentMismatch
    /// The peer's decision carried a confirmation code that does not match our transcript.
    case confirmationMismatch
    /// The other user, or the other side's policy, said no.
    case pairingRejected(reason: PeerCloseReason)
    /// This side's pairing budget refused a pairing run (``PairingBudget``): `pairingBusy` while another
    /// pairing is in progress or the source started one too recently, `pairingPaused` after failed runs.
    case pairingRefused(reason: PeerCloseReason)
    /// Nobody decided in time.
    case pairingTimedOut
    /// The peer did not finish its part of the handshake in time.
    case handshakeTimedOut(state: String)
    /// The peer ended the connection, saying why.
    case closedByPeer(reason: PeerCloseReason)
    /// A sealed datagram is larger than the configured maximum payload.
    case datagramTooLarge(limit: Int, size: Int)
}

extension PeerWireError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .frameTooLarge(let limit, let declared): "a frame of \(declared) bytes is over the limit of \(limit)"
        case .truncatedFrame: "the connection ended inside a frame"
        case .unsupportedFrameVersion(let version): "unknown frame version \(version)"
        case .malformedMessage(let detail): "malformed message: \(detail)"
        case .messageTooLarge(let limit, let declared): "a message of \(declared) bytes is over the limit of \(limit)"
        case .protocolViolation(let state, let message): "protocol violation: \(message) while \(state)"
        case .protocolMismatch(let ours, let theirs):
            "the peer speaks Huddle protocol \(Self.versions(theirs)), this side \(Self.versions(ours)): update the older side"
        case .sessionMismatch(let ours, let theirs): "the peer is in session \(theirs), not \(ours)"
        case .protocolDowngrade(let pinned, let offered):
            "the paired peer offered protocol \(offered) after \(pinned): refused as a downgrade"
        case .sasCommitmentMismatch: "the pairing nonce does not match its commitment"
        case .confirmationMismatch: "the peer's confirmation does not match the code"
        case .pairingRejected(let reason): "the connection was refused (\(reason))"
        case .pairingRefused(let reason): "pairing refused here (\(reason))"
        case .pairingTimedOut: "nobody decided in time"
        case .handshakeTimedOut(let state): "the peer did not finish the handshake (\(state))"
        case .closedByPeer(let reason): "the peer closed the connection (\(reason))"
        case .datagramTooLarge(let limit, let size): "a datagram of \(size) bytes is over the limit of \(limit)"
        }
    }

    private static func versions(_ range: ClosedRange<UInt8>) -> String {
        range.count == 1 ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
    }
}
