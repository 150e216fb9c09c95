public import HuddleTransport
import HuddleWire

/// Why a session call failed.
public enum PeerSessionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No such peer is known (never found, or gone).
    case unknownPeer(PeerID)
    /// The peer is not connected.
    case notConnected(PeerID)
    /// `connect` did not finish within its timeout.
    case connectTimedOut(PeerID)
    /// `cancelConnect` was called.
    case cancelled
    /// The session is stopped.
    case stopped
    /// The mode does not allow it (a server does not browse or dial; a client does not accept).
    case notAllowedInMode(PeerSessionMode)
    /// Pairing is refused for now (`docs/security.md` §3.5: at most 5 incomplete runs per 10 minutes).
    case pairingRateLimited
    /// The message is larger than the session's limit.
    case messageTooLarge(limit: Int, size: Int)
    /// The receiver declined the file.
    case transferDeclined(String)
    /// A transfer failed; see why.
    case transferFailed(String)
    /// The offer is larger than this side takes into memory (``TransferConfiguration/maximumInMemorySize``).
    case transferTooLarge(limit: UInt64, size: UInt64)
    /// The connection failed or ended; see why.
    case connection(PeerConnectionError)
    /// Taking the offer into memory would put the bytes held for all in-memory transfers together past
    /// ``TransferConfiguration/maximumInMemoryBytes``: `reserved` are held already. The offer stays open.
    case inMemoryBudgetExhausted(budget: UInt64, reserved: UInt64, size: UInt64)
    /// The peer has ``TransferConfiguration/maximumIncomingTransfersPerPeer`` transfers offered or under way
    /// already; its offer was declined.
    case tooManyTransfers(limit: Int)

    public var description: String {
        switch self {
        case .unknownPeer(let peer): "no peer \(peer) is known"
        case .notConnected(let peer): "peer \(peer) is not connected"
        case .connectTimedOut(let peer): "connecting to \(peer) timed out"
        case .cancelled: "cancelled"
        case .stopped: "the session is stopped"
        case .notAllowedInMode(let mode): "not possible in \(mode.rawValue) mode"
        case .pairingRateLimited: "too many unfinished pairing attempts; try again in a few minutes"
        case .messageTooLarge(let limit, let size): "a message of \(size) bytes is over the limit of \(limit)"
        case .transferDeclined(let reason): "the file was declined (\(reason))"
        case .transferFailed(let reason): "the transfer failed: \(reason)"
        case .transferTooLarge(let limit, let size): "\(size) bytes is over the in-memory limit of \(limit)"
        case .connection(.wire(.pairingRejected(reason: let reason))): "the connection was refused (\(reason))"
        case .connection(let error): "\(error)"
        case .inMemoryBudgetExhausted(let budget, let reserved, let size):
            "\(size) bytes do not fit in the in-memory budget of \(budget) (\(reserved) held by other transfers)"
        case .tooManyTransfers(let limit): "the peer has \(limit) transfers offered or under way already"
        }
    }
}
