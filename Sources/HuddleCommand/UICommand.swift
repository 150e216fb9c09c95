import ArgumentParser
import HuddleDaemon
import HuddleWeb

/// `huddle ui`: the daemon's page in a browser (docs/web.md).
struct UICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: "Open the daemon's page: the devices, the questions to answer, the outbox.",
        discussion: """
            huddle daemon serves the page on 127.0.0.1 only, with a token that is new each time the daemon \
            starts: without it, or under another address, every request is refused.

              huddle ui            (opens it with xdg-open, or $BROWSER)
              huddle ui --url      (prints the address with its token instead)
            """
    )

    @Flag(help: "Print the page's address with its token instead of opening it.") var url = false
    @OptionGroup var data: DataDirectoryOption

    func run() async throws {
        let client = try await DaemonRoute.required(data)
        let opens = !url
        try await DaemonRoute.run(client, ControlRequest(.ui)) { link in
            Output.line(link)
            if opens, let failure = PageOpener.open(link) { Output.error(failure) }
        }
    }
}
