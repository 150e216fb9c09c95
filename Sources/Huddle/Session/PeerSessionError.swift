import HuddleBase
public import HuddleErrors
public import HuddleTransport
public import HuddleWire

/// Why a session call failed: a ``Code`` to branch on, and what the failure is about (``peer``, ``reason``,
/// ``connectionError``, ``underlying``, ``limit``, ``size``).
///
/// A struct in the style of SwiftNIO's errors rather than an enum, so that codes can be added without breaking a
/// caller's `switch`: compare with `==` (`error == .stopped`, `error.code == .transferFailed`) and give a
/// `default` branch.
public struct PeerSessionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure it is.
    public typealias Code = ErrorCode<PeerSessionError>

    /// The failure and what it carries.
    indirect enum Storage: Hashable, Sendable {
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
        case autoConnectFailed(PeerSessionError)
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
        /// The device behind a pairing link calls itself by a name that looks like a paired device's: not paired
        /// (``PeerSessionConfiguration`` cannot waive this; a code comparison can pair it).
        case lookalikeLink(PeerID, name: String)
        /// This many datagrams claiming to be the peer's failed authentication: datagrams from it are no longer
        /// taken on this connection (reliable messages and transfers go on).
        case datagramsStopped(PeerID, forgeries: UInt64)
        /// The peer speaks protocol `version`, which has no channels other than 0, no unordered or sequenced
        /// modes and no unreliable messages over one datagram (`docs/realtime.md`, "Older peers").
        case needsNewerPeer(PeerID, version: UInt8)
        /// Taking the offer into memory would put the bytes held for all in-memory transfers together past
        /// ``TransferConfiguration/maximumInMemoryBytes``: `reserved` are held already. The offer stays open.
        case inMemoryBudgetExhausted(budget: UInt64, reserved: UInt64, size: UInt64)
        /// The peer has ``TransferConfiguration/maximumIncomingTransfersPerPeer`` transfers offered or under way
        /// already; its offer was declined.
        case tooManyTransfers(limit: Int)
        /// Registering in or browsing a wide-area DNS-SD domain failed (the reason says how).
        case wideArea(String)
    }

    let storage: Storage

    init(_ storage: Storage) { self.storage = storage }

    /// The reasons a peer gives (declined, failed) are shown with terminal controls made visible.
    public var description: String {
        switch storage {
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
        case .needsNewerPeer(let peer, let version):
            "peer \(peer) speaks protocol \(version), which has only channel 0 and messages of one datagram: update it"
        case .datagramsStopped(let peer, let forgeries):
            "\(forgeries) forged datagrams claimed to come from \(peer): its datagrams are no longer taken on this connection"
        case .lookalikeName(let claimed, let shown):
            "\(shown) now calls itself \"\(claimed)\", which looks like another paired device's name: still shown as \(shown)"
        case .lookalikeLink(_, let name):
            "the device behind the pairing link calls itself \"\(name)\", which looks like the name of a device paired before: not paired (compare codes to pair it)"
        case .instanceClaimed(let peer, let device):
            "device \(device.shortID) claimed to be peer \(peer), which is another device: refused"
        case .inMemoryBudgetExhausted(let budget, let reserved, let size):
            "\(size) bytes do not fit in the in-memory budget of \(budget) (\(reserved) held by other transfers)"
        case .tooManyTransfers(let limit): "the peer has \(limit) transfers offered or under way already"
        case .wideArea(let reason): "wide-area DNS-SD: \(reason)"
        }
    }
}

extension PeerSessionError {
    public var code: Code {
        switch storage {
        case .unknownPeer: .unknownPeer
        case .notConnected: .notConnected
        case .connectTimedOut: .connectTimedOut
        case .cancelled: .cancelled
        case .stopped: .stopped
        case .notAllowedInMode: .notAllowedInMode
        case .pairingRateLimited: .pairingRateLimited
        case .messageTooLarge: .messageTooLarge
        case .transferDeclined: .transferDeclined
        case .transferFailed: .transferFailed
        case .transferNotAnswered: .transferNotAnswered
        case .invalidConfiguration: .invalidConfiguration
        case .autoConnectFailed: .autoConnectFailed
        case .transferTooLarge: .transferTooLarge
        case .connection: .connection
        case .instanceClaimed: .instanceClaimed
        case .lookalikeName: .lookalikeName
        case .lookalikeLink: .lookalikeLink
        case .datagramsStopped: .datagramsStopped
        case .needsNewerPeer: .needsNewerPeer
        case .inMemoryBudgetExhausted: .inMemoryBudgetExhausted
        case .tooManyTransfers: .tooManyTransfers
        case .wideArea: .wideArea
        }
    }

    /// The peer the failure is about: `unknownPeer`, `notConnected`, `connectTimedOut`, `instanceClaimed`,
    /// `datagramsStopped`.
    public var peer: PeerID? {
        switch storage {
        case .unknownPeer(let peer), .notConnected(let peer), .connectTimedOut(let peer),
            .instanceClaimed(let peer, _), .datagramsStopped(let peer, _), .lookalikeLink(let peer, _),
            .needsNewerPeer(let peer, _):
            peer
        default: nil
        }
    }

    /// The reason given, by the peer or by the check that failed: `transferDeclined`, `transferFailed`,
    /// `invalidConfiguration`; the claimed name of a `lookalikeName`. Untrusted when it comes from a peer (shown
    /// escaped in ``description``).
    public var reason: String? {
        switch storage {
        case .transferDeclined(let reason), .transferFailed(let reason), .invalidConfiguration(let reason),
            .lookalikeName(let reason, _):
            reason
        default: nil
        }
    }

    /// The connection's own error, for `connection`.
    public var connectionError: PeerConnectionError? {
        guard case .connection(let error) = storage else { return nil }
        return error
    }

    /// The wire-level error beneath a `connection` failure, when there is one.
    public var wireError: PeerWireError? {
        guard case .connection(.wire(let error)) = storage else { return nil }
        return error
    }

    /// The error beneath an `autoConnectFailed`.
    public var underlying: PeerSessionError? {
        guard case .autoConnectFailed(let error) = storage else { return nil }
        return error
    }

    /// The limit a `messageTooLarge`, `transferTooLarge`, `inMemoryBudgetExhausted` or `tooManyTransfers` was
    /// over, and the size that was.
    public var limit: (limit: UInt64, size: UInt64?)? {
        switch storage {
        case .messageTooLarge(let limit, let size): (UInt64(limit), UInt64(size))
        case .transferTooLarge(let limit, let size): (limit, size)
        case .inMemoryBudgetExhausted(let budget, _, let size): (budget, size)
        case .tooManyTransfers(let limit): (UInt64(limit), nil)
        default: nil
        }
    }

    public static func unknownPeer(_ peer: PeerID) -> Self { .init(.unknownPeer(peer)) }
    public static func notConnected(_ peer: PeerID) -> Self { .init(.notConnected(peer)) }
    public static func connectTimedOut(_ peer: PeerID) -> Self { .init(.connectTimedOut(peer)) }
    public static let cancelled = Self(.cancelled)
    public static let stopped = Self(.stopped)
    public static func notAllowedInMode(_ mode: PeerSessionMode) -> Self { .init(.notAllowedInMode(mode)) }
    public static let pairingRateLimited = Self(.pairingRateLimited)
    public static func messageTooLarge(limit: Int, size: Int) -> Self {
        .init(.messageTooLarge(limit: limit, size: size))
    }
    public static func transferDeclined(_ reason: String) -> Self { .init(.transferDeclined(reason)) }
    public static func transferFailed(_ reason: String) -> Self { .init(.transferFailed(reason)) }
    public static func transferNotAnswered(after limit: Duration) -> Self { .init(.transferNotAnswered(after: limit)) }
    public static func invalidConfiguration(_ reason: String) -> Self { .init(.invalidConfiguration(reason)) }
    public static func autoConnectFailed(_ error: PeerSessionError) -> Self { .init(.autoConnectFailed(error)) }
    public static func transferTooLarge(limit: UInt64, size: UInt64) -> Self {
        .init(.transferTooLarge(limit: limit, size: size))
    }
    public static func connection(_ error: PeerConnectionError) -> Self { .init(.connection(error)) }
    public static func instanceClaimed(_ peer: PeerID, by device: DeviceID) -> Self {
        .init(.instanceClaimed(peer, by: device))
    }
    public static func lookalikeLink(_ peer: PeerID, name: String) -> Self { .init(.lookalikeLink(peer, name: name)) }
    public static func lookalikeName(_ claimed: String, shownAs shown: String) -> Self {
        .init(.lookalikeName(claimed, shownAs: shown))
    }
    public static func datagramsStopped(_ peer: PeerID, forgeries: UInt64) -> Self {
        .init(.datagramsStopped(peer, forgeries: forgeries))
    }
    public static func needsNewerPeer(_ peer: PeerID, version: UInt8) -> Self {
        .init(.needsNewerPeer(peer, version: version))
    }
    public static func inMemoryBudgetExhausted(budget: UInt64, reserved: UInt64, size: UInt64) -> Self {
        .init(.inMemoryBudgetExhausted(budget: budget, reserved: reserved, size: size))
    }
    public static func tooManyTransfers(limit: Int) -> Self { .init(.tooManyTransfers(limit: limit)) }
    public static func wideArea(_ reason: String) -> Self { .init(.wideArea(reason)) }

    /// Lets `catch PeerSessionError.cancelled` and `case .stopped` match an error equal to the one named.
    public static func ~= (pattern: PeerSessionError, error: any Error) -> Bool {
        (error as? PeerSessionError) == pattern
    }

    /// `300 s`, or `300 ms` below a whole second.
    static func spoken(_ duration: Duration) -> String {
        let milliseconds = Int64(duration / .milliseconds(1))
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}

extension ErrorCode where Domain == PeerSessionError {
    public static let unknownPeer = Self("unknownPeer")
    public static let notConnected = Self("notConnected")
    public static let connectTimedOut = Self("connectTimedOut")
    public static let cancelled = Self("cancelled")
    public static let stopped = Self("stopped")
    public static let notAllowedInMode = Self("notAllowedInMode")
    public static let pairingRateLimited = Self("pairingRateLimited")
    public static let messageTooLarge = Self("messageTooLarge")
    public static let transferDeclined = Self("transferDeclined")
    public static let transferFailed = Self("transferFailed")
    public static let transferNotAnswered = Self("transferNotAnswered")
    public static let invalidConfiguration = Self("invalidConfiguration")
    public static let autoConnectFailed = Self("autoConnectFailed")
    public static let transferTooLarge = Self("transferTooLarge")
    public static let connection = Self("connection")
    public static let instanceClaimed = Self("instanceClaimed")
    public static let lookalikeName = Self("lookalikeName")
    public static let lookalikeLink = Self("lookalikeLink")
    public static let datagramsStopped = Self("datagramsStopped")
    public static let needsNewerPeer = Self("needsNewerPeer")
    public static let inMemoryBudgetExhausted = Self("inMemoryBudgetExhausted")
    public static let tooManyTransfers = Self("tooManyTransfers")
    public static let wideArea = Self("wideArea")
}
