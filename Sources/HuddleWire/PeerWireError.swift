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
    /// A pinned peer announced a lower protocol version than it had before (`docs/security.md` E9).
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
