import ArgumentParser
import Foundation
import HuddleClipboard
import HuddlePasteboard

struct URLRegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register `huddle url open` as the desktop's handler for huddle: links.",
        discussion: """
            Writes huddle-url-handler.desktop (MimeType=x-scheme-handler/huddle) to \
            $XDG_DATA_HOME/applications (default ~/.local/share/applications) and runs xdg-mime and \
            update-desktop-database when they are installed.
            """
    )

    func run() async throws {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        let result = try await CommandFailure.run {
            try URLSchemeRegistration.register(executable: executable)
        }
        Output.line("wrote \(result.desktopFile.path)")
        for line in result.ran { Output.line("ran: \(line)") }
        for line in result.skipped { Output.line("skipped (not installed): \(line)") }
    }
}
