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
            update-desktop-database when they are installed. With --print it writes nothing and prints the \
            entry (what a package installs as /usr/share/applications/huddle-url-handler.desktop).
            """
    )

    @Flag(name: .customLong("print"), help: "Print the desktop entry instead of installing it.") var printOnly = false
    @OptionGroup var executable: ExecutableOption

    func run() async throws {
        if printOnly {
            print(URLSchemeRegistration.desktopEntry(executable: executable.path), terminator: "")
            return
        }
        let result = try await CommandFailure.run {
            try URLSchemeRegistration.register(executable: executable.path)
        }
        Output.line("wrote \(result.desktopFile.path)")
        for line in result.ran { Output.line("ran: \(line)") }
        for line in result.skipped { Output.line("skipped (not installed): \(line)") }
    }
}
