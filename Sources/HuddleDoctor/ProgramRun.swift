import Foundation
import Subprocess
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a program run to its end printed, and how it ended: its exit status, or 128 + the signal that ended it
/// (the shell's convention), 128 + SIGKILL when it was killed at its deadline.
struct ProgramRun: Sendable {
    var status: Int32
    var output: String
    var error: String

    /// Runs `path` with `arguments` (standard input empty) through swift-subprocess, which learns of the child's
    /// end from a pidfd: no socket, so it works in a network namespace whose loopback is down, where `huddle
    /// doctor` is most needed (Foundation's `Process` waits through a CFSocket there). At `timeout` the run is
    /// cancelled, which kills the child. Nil when the program could not be started.
    static func run(_ path: String, _ arguments: [String], timeout: Duration) async -> ProgramRun? {
        await withTaskGroup(of: ProgramRun?.self) { group in
            group.addTask {
                do {
                    let result = try await Subprocess.run(
                        .path(FilePath(path)),
                        arguments: Arguments(arguments),
                        output: .string(limit: Self.outputLimit),
                        error: .string(limit: Self.errorLimit)
                    )
                    return ProgramRun(
                        status: Self.status(result.terminationStatus),
                        output: result.standardOutput,
                        error: result.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
                    )
                } catch {
                    return nil
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                let name = path.split(separator: "/").last.map(String.init) ?? path
                return ProgramRun(status: 128 + SIGKILL, output: "", error: "\(name) did not finish in \(timeout)")
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// A rule set listing of a large host firewall fits with room to spare; more is an error, not a cut.
    static let outputLimit = 32 << 20
    static let errorLimit = 1 << 20

    private static func status(_ termination: TerminationStatus) -> Int32 {
        switch termination {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    }
}
