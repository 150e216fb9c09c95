import Huddle
import HuddleMDNSCore
import HuddlePasteboard
import HuddleTransport

/// The exit statuses of `huddle`: 0 for success, 1 for a refusal or a failure the user can act on (declined, not
/// shared, a transfer that failed), the sysexits(3) numbers where one fits, 130 after Ctrl-C. One map from
/// errors to statuses, for the commands and for the daemon's answers.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    case success = 0
    case failure = 1
    /// `huddle doctor` found a problem (an error or a warning; its report says which). Apart from 1 so a script
    /// tells "the network has a problem" from "doctor itself failed".
    case problemsFound = 3
    /// EX_USAGE: the command line was wrong (a bad choice, an unknown name given where a list was offered).
    case usage = 64
    /// EX_DATAERR: input that does not parse.
    case dataError = 65
    /// EX_NOINPUT: the device key or another input could not be read.
    case noInput = 66
    /// EX_UNAVAILABLE: the session or the network could not be used; no peer found or connected.
    case unavailable = 69
    /// EX_CANTCREAT: the trust store could not be written.
    case cannotCreate = 73
    /// EX_IOERR: reading or writing storage failed.
    case ioError = 74
    /// EX_TEMPFAIL: try again later (a time-out, pairing paused).
    case temporaryFailure = 75
    /// EX_CONFIG: a configuration file (the daemon's `config.toml`) does not parse or names what it may not.
    case configuration = 78
    /// Interrupted by SIGINT or SIGTERM (128 + 2, as shells report).
    case interrupted = 130

    /// The status a program ends with after `error`.
    public init(for error: any Error) {
        self =
            switch error {
            case let error as PasteboardError: Self(for: error.code)
            case is MDNSError, is IdentityError: .unavailable
            case is TrustStoreError: .cannotCreate
            case let error as PeerSessionError: Self(for: error.code)
            case let error as RendezvousError: error.needsTheUser ? .usage : .unavailable
            default: .failure
            }
    }

    init(for code: PeerSessionError.Code) {
        self =
            switch code {
            case .invalidConfiguration, .notAllowedInMode, .messageTooLarge: .usage
            case .connectTimedOut, .pairingRateLimited, .transferNotAnswered: .temporaryFailure
            case .unknownPeer, .notConnected, .stopped, .connection, .autoConnectFailed: .unavailable
            default: .failure
            }
    }

    init(for code: PasteboardError.Code) {
        self =
            switch code {
            case .malformedURL, .invalidName, .invalidInput: .usage
            case .tooLarge, .malformedArchive: .dataError
            case .noBackend, .libraryMissing, .displayUnavailable, .helperMissing: .unavailable
            case .storage: .ioError
            case .timeout, .transferFailed: .temporaryFailure
            default: .failure  // empty clipboard, type not offered, no such pasteboard
            }
    }
}
