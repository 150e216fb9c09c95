import ArgumentParser
import Foundation

/// `--executable`, for the commands that write out how to start Huddle (a systemd unit, a desktop entry): the
/// program named there. By default this one, as the kernel knows it; a package names `/usr/bin/huddle`.
struct ExecutableOption: ParsableArguments {
    @Option(help: ArgumentHelp("The huddle program to name (default: this one).", valueName: "path"))
    var executable: String?

    var path: String {
        executable
            ?? (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
    }
}
