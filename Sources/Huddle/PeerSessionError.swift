public import HuddleTransport
public import HuddleWire

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
    /// Pairing is refused for now: paused after failed runs (``PairingBudget``).
    case pairingRateLimited
    /// The message is larger than the session's limit.
    case messageTooLarge(limit: Int, size: Int)
    /// The receiver declined the file.
    case transferDeclined(String)
    /// A transfer failed; see why.
    case transferFailed(String)
    /// The receiver neither accepted nor declined within ``TransferConfiguration/decisionTimeout``; the offer
    /// was withdrawn.
    case transferNotAnswered(after: Duration)
    /// Settings that do not fit together (``PeerSessionConfiguration/validate()``), named with the reason.
    case invalidConfiguration(String)
    /// Connecting to a peer found, as ``PeerSessionConfiguration/connectsToFoundPeers`` asks, failed.
    indirect case autoConnectFailed(PeerSessionError)
    /// The offer is larger than this side takes into memory (``TransferConfiguration/maximumInMemorySize``).
    case transferTooLarge(limit: UInt64, size: UInt64)
    /// The connection failed or ended; see why.
    case connection(PeerConnectionError)
    /// A device claimed to be a peer that is another device (its instance is bound to the key TLS proved
    /// before): refused.
    case instanceClaimed(PeerID, by: DeviceID)
    /// A paired device now calls itself by a name that looks like another paired device's; it is still shown
    /// under the name it had.
    case lookalikeName(String, shownAs: String)
    /// This many datagrams claiming to be the peer's failed authentication: datagrams from it are no longer
    /// taken on this connection (reliable messages and transfers go on).
    case datagramsStopped(PeerID, forgeries: UInt64)
    /// Taking the offer into memory would put the bytes held for all in-memory transfers together past
    /// ``TransferConfiguration/maximumInMemoryBytes``: `reserved` are held already. The offer stays open.
    case inMemoryBudgetExhausted(budget: UInt64, reserved: UInt64, size: UInt64)
    /// The peer has ``TransferConfiguration/maximumIncomingTransfersPerPeer`` transfers offered or under way
    /// already; its offer was declined.
    case tooManyTransfers(limit: Int)

    /// The reasons a peer gives (declined, failed) are shown with terminal controls made visible.
    public var description: String {
        switch self {
        case .unknownPeer(let peer): "no peer \(peer) is known"
        case .notConnected(let peer): "peer \(peer) is not connected"
        case .connectTimedOut(let peer): "connecting to \(peer) timed out"
        case .cancelled: "cancelled"
        case .stopped: "the session is stopped"
        case .notAllowedInMode(let mode): "not possible in \(mode.rawValue) mode"
        case .pairingRateLimited: "pairing is paused after abandoned attempts; try again in a minute"
        case .messageTooLarge(let limit, let size): "a message of \(size) bytes is over the limit of \(limit)"
        case .transferDeclined(let reason): "the file was declined (\(DisplayText.escaped(reason)))"
        case .transferFailed(let reason): "the transfer failed: \(DisplayText.escaped(reason))"
        case .transferNotAnswered(let limit): "the receiver did not answer within \(Self.spoken(limit))"
        case .autoConnectFailed(let error): "could not connect: \(error)"
        case .invalidConfiguration(let reason): "invalid configuration: \(reason)"
        case .transferTooLarge(let limit, let size): "\(size) bytes is over the in-memory limit of \(limit)"
        case .connection(.wire(.pairingRejected(reason: let reason))): "the connection was refused (\(reason))"
        case .connection(let error): "\(error)"
        case .datagramsStopped(let peer, let forgeries):
            "\(forgeries) forged datagrams claimed to come from \(peer): its datagrams are no longer taken on this connection"
        case .lookalikeName(let claimed, let shown):
            "\(shown) now calls itself \"\(claimed)\", which looks like another paired device's name: still shown as \(shown)"
        case .instanceClaimed(let peer, let device):
            "device \(device.shortID) claimed to be peer \(peer), which is another device: refused"
        case .inMemoryBudgetExhausted(let budget, let reserved, let size):
            "\(size) bytes do not fit in the in-memory budget of \(budget) (\(reserved) held by other transfers)"
        case .tooManyTransfers(let limit): "the peer has \(limit) transfers offered or under way already"
        }
    }
}

extension PeerSessionError {
    /// `300 s`, or `300 ms` below a whole second.
    static func spoken(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
