import ArgumentParser
import Huddle
import HuddleApp
import HuddleMDNSCore
import HuddlePasteboard
import HuddleTransport

/// The exit codes of `huddle`: 0 for success, 1 for a refusal or a failure the user can act on (declined, not
/// shared, a transfer that failed), the sysexits(3) numbers where one fits, 130 after Ctrl-C.
extension ExitCode {
    /// 3: `huddle doctor` found a problem (an error or a warning; its report says which). Apart from 1 so a script
    /// tells "the network has a problem" from "doctor itself failed".
    static let problemsFound = ExitCode(3)
    /// 64, EX_USAGE: the command line was wrong (a bad choice, an unknown name given where a list was offered).
    static let usage = ExitCode(64)
    /// 65, EX_DATAERR: input that does not parse.
    static let dataError = ExitCode(65)
    /// 66, EX_NOINPUT: the device key or another input could not be read.
    static let noInput = ExitCode(66)
    /// 69, EX_UNAVAILABLE: the session or the network could not be used; no peer found or connected.
    static let unavailable = ExitCode(69)
    /// 73, EX_CANTCREAT: the trust store could not be written.
    static let cannotCreate = ExitCode(73)
    /// 74, EX_IOERR: reading or writing storage failed.
    static let ioError = ExitCode(74)
    /// 75, EX_TEMPFAIL: try again later (a time-out, pairing paused).
    static let temporaryFailure = ExitCode(75)
    /// 130: interrupted by SIGINT or SIGTERM (128 + 2, as shells report).
    static let interrupted = ExitCode(130)
}

/// The one map from errors to exit codes; commands print the error, then exit with its code.
enum CommandFailure {
    static func exitCode(for error: any Error) -> ExitCode {
        switch error {
        case let code as ExitCode:
            code
        case let error as PasteboardError:
            exitCode(for: error.code)
        case is MDNSError, is IdentityError:
            .unavailable
        case is TrustStoreError:
            .cannotCreate
        case let error as PeerSessionError:
            exitCode(for: error)
        case let error as RendezvousError:
            error.needsTheUser ? .usage : .unavailable
        default:
            .failure
        }
    }

    static func exitCode(for error: PeerSessionError) -> ExitCode {
        switch error.code {
        case .invalidConfiguration, .notAllowedInMode, .messageTooLarge: .usage
        case .connectTimedOut, .pairingRateLimited, .transferNotAnswered: .temporaryFailure
        case .unknownPeer, .notConnected, .stopped, .connection, .autoConnectFailed: .unavailable
        default: .failure
        }
    }

    static func exitCode(for code: PasteboardError.Code) -> ExitCode {
        switch code {
        case .malformedURL, .invalidName, .invalidInput: .usage
        case .tooLarge, .malformedArchive: .dataError
        case .noBackend, .libraryMissing, .displayUnavailable, .helperMissing: .unavailable
        case .storage: .ioError
        case .timeout, .transferFailed: .temporaryFailure
        default: .failure  // empty clipboard, type not offered, no such pasteboard
        }
    }

    /// Runs `body`; an error other than an exit code is printed as `huddle: message` and becomes its exit code.
    static func run<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let code as ExitCode {
            throw code
        } catch let usage as ValidationError {
            throw usage  // the argument parser prints it with the usage and exits 64
        } catch let exit as CleanExit {
            throw exit
        } catch let error as PasteboardError {
            Output.error(error.message)
            throw exitCode(for: error)
        } catch let error as MDNSError {
            Output.error(error.message)
            throw exitCode(for: error)
        } catch {
            Output.error("\(error)")
            throw exitCode(for: error)
        }
    }
}
