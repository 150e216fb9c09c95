import ArgumentParser
import Foundation
import HuddleApp
import HuddlePasteboard

struct PasteboardWatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print each change of the clipboard as it happens.",
        discussion: """
            Event-driven: on X11 the server tells Huddle when the clipboard changes (XFixes), so nothing runs \
            while nothing changes — no polling. Items a password manager marked secret are shown as such, \
            without their content. Runs until interrupted, or for --count changes.

            Each line: the change number, the types on offer and the start of the text (or the size of an \
            image). --json prints one object per line: {"sequence", "types", "secret", "empty", "bytes", \
            "text"} ("text" only for text, at most 1000 characters). Lines are written at once, also into pipes.
            """
    )

    @Flag(help: "Print one JSON object per line.")
    var json = false

    @Flag(help: "Watch the PRIMARY selection instead of CLIPBOARD.")
    var primary = false

    @Option(help: ArgumentHelp("Stop after this many changes.", valueName: "n"))
    var count: Int?

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
    }

    func run() async throws {
        let selection: PasteboardSelection = self.primary ? .primary : .clipboard
        let changes = try await CommandFailure.run {
            let pasteboard = try SystemPasteboard.make()
            let changes = try pasteboard.changes(of: selection)
            if !self.json {
                Output.line("Watching \(selection.rawValue) on \(pasteboard.backendDescription) (Ctrl-C to stop)")
            }
            return changes
        }
        let json = self.json
        let limit = self.count
        // Until --count changes were seen, or Ctrl-C.
        _ = try await CommandServices.run([]) {
            var seen = 0
            for await change in changes {
                json ? Output.json(PasteboardChangeRecord(change)) : Output.line(PasteboardChangeText.line(change))
                seen += 1
                if let limit, seen >= limit { return }
            }
        }
    }
}
