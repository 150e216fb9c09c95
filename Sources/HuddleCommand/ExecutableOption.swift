import ArgumentParser
import Foundation

/// `--executable`, for the commands that write out how to start Huddle (a systemd unit, a desktop entry): the
/// program named there. By default this one, as the kernel knows it; a package names `/usr/bin/huddle`.
struct ExecutableOption: ParsableArguments {
    @Option(help: ArgumentHelp("The huddle program to name (default: this one).", valueName: "path"))
    var executable: String?

    var path: String { executable ?? Self.running }

    /// This program as the kernel knows it (`/proc/self/exe`), else as it was started.
    static var running: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
