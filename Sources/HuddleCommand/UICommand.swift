import ArgumentParser
import Foundation
import HuddleDaemon
import HuddleQR
import HuddleWeb

/// `huddle ui`: the daemon's page in a browser (docs/web.md).
struct UICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: "Open the daemon's page: the devices, the questions to answer, the outbox.",
        discussion: """
            huddle daemon serves the page on 127.0.0.1 only, with a token that is new each time the daemon \
            starts: without it, or under another address, every request is refused.

            With files, the page opens with them, to pick who gets them: what the file managers' "Send with \
            Huddle" runs (huddle daemon --install-unit installs it).

              huddle ui            (opens it with xdg-open, or $BROWSER)
              huddle ui --url      (prints the address with its token instead)
              huddle ui photo.jpg notes.pdf
              huddle ui --phone [FILE…]   (a code for a phone here: its camera opens a page to send files \
            here, and to download these)
            """
    )

    @Flag(help: "Print the page's address with its token instead of opening it.") var url = false
    @Flag(help: "Show a new one-time code for a phone: its page's LAN address, as a QR code too.") var phone = false
    @Argument(help: "Files to send, to a device picked on the page (with --phone: for the phone to download).")
    var files: [String] = []
    @OptionGroup var data: DataDirectoryOption

    func run() async throws {
        let paths = files.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        if let missing = paths.first(where: { !FileManager.default.fileExists(atPath: $0) }) {
            throw ValidationError("no such file: \(missing)")
        }
        let client = try await DaemonRoute.required(data)
        let opens = !url
        var request = ControlRequest(phone ? .phone : .ui)
        request.paths = paths.isEmpty ? nil : paths
        try await DaemonRoute.run(client, request) { link in
            Output.line(link)
            for line in phone ? QRCode.terminalLines(encoding: link) : [] { Output.line(line) }
            if opens && !phone, let failure = PageOpener.open(link) { Output.error(failure) }
        }
    }
}
