import ArgumentParser
import HuddleApp
import HuddleMDNSCore
import HuddlePasteboard

/// The exit codes of `huddle` (``ExitStatus`` says what each means).
extension ExitCode {
    init(_ status: ExitStatus) { self.init(status.rawValue) }

    static let problemsFound = ExitCode(.problemsFound)
    static let usage = ExitCode(.usage)
    static let dataError = ExitCode(.dataError)
    static let noInput = ExitCode(.noInput)
    static let unavailable = ExitCode(.unavailable)
    static let cannotCreate = ExitCode(.cannotCreate)
    static let ioError = ExitCode(.ioError)
    static let temporaryFailure = ExitCode(.temporaryFailure)
    static let configuration = ExitCode(.configuration)
    static let interrupted = ExitCode(.interrupted)
}

/// Commands print an error, then exit with its code.
enum CommandFailure {
    static func exitCode(for error: any Error) -> ExitCode {
        (error as? ExitCode) ?? ExitCode(ExitStatus(for: error))
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
