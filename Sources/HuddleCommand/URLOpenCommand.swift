import ArgumentParser
import Foundation
import HuddleApp
import HuddleClipboard
import HuddlePasteboard

struct URLOpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Put the item of a huddle: URL on the clipboard (what the desktop runs for huddle: links).",
        discussion: """
            A link can come from any web page, so this asks first: it shows the types and sizes the URL carries \
            (and the start of any text) and puts them on the clipboard after a y on the terminal. With no \
            terminal to ask on (as when the desktop runs it for a link) it refuses, unless --yes is given.

            A URL that names a named pasteboard (huddle:item?name=N, which reads it, and with clear=1 removes \
            it) is followed only after a y on a terminal; --yes does not cover it. To read a named pasteboard on \
            purpose: huddle pb paste --name N.
            """
    )

    @Argument(help: ArgumentHelp("The huddle: URL.", valueName: "url"))
    var url: String

    @Flag(help: "Without a terminal: take an item the URL carries without asking (never a named pasteboard).")
    var yes = false

    func run() async throws {
        let content = try await CommandFailure.run { try HuddleURL(parsing: self.url).content }
        let item = try await self.decide(content, onTerminal: isatty(0) == 1, prompter: .standard)
        try await CommandFailure.run {
            let pasteboard = try SystemPasteboard.make()
            #if os(Linux)
            if pasteboard is X11Pasteboard {
                try BackgroundOwner.start(item: item, selection: .clipboard)
                return
            }
            #endif
            try await pasteboard.write(item, to: .clipboard)
        }
        let types = item.types.map(\.rawValue).joined(separator: ", ")
        Output.error("copied \(item.byteCount) bytes to the clipboard [\(types)]")
    }

    /// The item to put on the clipboard, once the user said yes (or --yes did, for an item the URL carries).
    ///
    /// - Throws: `ExitCode.failure` after saying why, when refused or answered no. A named pasteboard is read only on a
    ///   terminal (to show what it holds), and removed only after a yes.
    func decide(_ content: HuddleURL.Content, onTerminal: Bool, prompter: Prompter) async throws -> PasteboardItem {
        switch content {
        case .item(let item):
            if self.yes { return item }
            guard onTerminal else {
                Output.error(
                    "not copied: a huddle: link would put \(ClipItemSummary(item).described(item)) on the clipboard, "
                        + "and there is no terminal to ask on. Open it from a terminal, or add --yes to take it "
                        + "without asking"
                )
                throw ExitCode.failure
            }
            let question = "? Put \(ClipItemSummary(item).described(item)) from a huddle: link on the clipboard? [y/n]"
            guard await prompter.confirm([question]) else {
                Output.error("not copied")
                throw ExitCode.failure
            }
            return item
        case .reference(let name, let clear):
            let what = "the named pasteboard \(name)" + (clear ? ", and remove it" : "")
            guard onTerminal else {
                Output.error(
                    "not copied: the huddle: link would read \(what), and there is no terminal to ask on (--yes does "
                        + "not cover named pasteboards). To read it on purpose: huddle pb paste --name \(name)"
                )
                throw ExitCode.failure
            }
            let store = NamedPasteboardStore()
            let item = try await CommandFailure.run { try store.read(name: name) }
            let question =
                "? A huddle: link reads \(what): \(ClipItemSummary(item).described(item)). "
                + "Put it on the clipboard? [y/n]"
            guard await prompter.confirm([question]) else {
                Output.error("not copied; the named pasteboard \(name) is left as it was")
                throw ExitCode.failure
            }
            guard clear else { return item }
            return try await CommandFailure.run { try store.readAndClear(name: name) }
        }
    }
}
