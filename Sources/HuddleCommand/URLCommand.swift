import ArgumentParser
import Foundation
import HuddleClipboard
import HuddlePasteboard

struct URLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "url",
        abstract: "Hand data to another program in a huddle: URL.",
        discussion: """
            A huddle: URL carries a small item itself (base64url, up to about 73 KB of data), or the name of a \
            named pasteboard holding a larger one.

            Examples:
              huddle url encode photo.png                  print huddle:item?type=public.png&data=…
              huddle url encode --name com.example.x big.pdf   store big.pdf, print a reference URL
              huddle url decode 'huddle:item?…' > out      write the data to standard output
              huddle url open 'huddle:item?…'              put the item on the clipboard
              huddle url register                          make `xdg-open huddle:…` run `huddle url open`
            """,
        subcommands: [URLEncodeCommand.self, URLDecodeCommand.self, URLOpenCommand.self, URLRegisterCommand.self]
    )
}

struct URLEncodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract: "Print a huddle: URL for a file or standard input."
    )

    @Argument(help: ArgumentHelp("The file; - or nothing for standard input.", valueName: "file"))
    var file: String?

    @Option(help: ArgumentHelp("The type of the data (guessed when absent).", valueName: "T"))
    var type: String?

    @Option(help: ArgumentHelp("Store the item in this named pasteboard; the URL refers to it.", valueName: "N"))
    var name: String?

    @Flag(help: "With --name: the receiver removes the pasteboard when it reads it.")
    var clear = false

    func validate() throws {
        if let name {
            do { try NamedPasteboardStore.validate(name) } catch let error as PasteboardError {
                throw ValidationError(error.message)
            }
        } else if self.clear {
            throw ValidationError("--clear needs --name")
        }
    }

    func run() async throws {
        let data = try readInput(self.file)
        let item = PasteboardItem(
            type: self.type.map(PasteboardType.init(rawValue:)) ?? .guess(data: data, fileName: self.file),
            data: data
        )
        let text = try await CommandFailure.run { () -> String in
            if let name = self.name {
                try NamedPasteboardStore().write(item, name: name)
                return try HuddleURL(.reference(name: name, clear: self.clear)).encoded()
            }
            return try HuddleURL(.item(item)).encoded()
        }
        Output.line(text)
    }
}

/// The item a URL carries, reading the named pasteboard for a reference.
func resolve(_ url: String) throws -> PasteboardItem {
    switch try HuddleURL(parsing: url).content {
    case .item(let item):
        return item
    case .reference(let name, let clear):
        let store = NamedPasteboardStore()
        return clear ? try store.readAndClear(name: name) : try store.read(name: name)
    }
}

struct URLDecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Write the data of a huddle: URL to standard output."
    )

    @Argument(help: ArgumentHelp("The huddle: URL.", valueName: "url"))
    var url: String

    @Option(help: ArgumentHelp("The representation to write (default: the first).", valueName: "T"))
    var type: String?

    @Flag(help: "Print the types the URL carries instead of the data.")
    var types = false

    func run() async throws {
        let item = try await CommandFailure.run { try resolve(self.url) }
        if self.types {
            for type in item.types { Output.line(type.rawValue) }
            return
        }
        let type = self.type.map(PasteboardType.init(rawValue:)) ?? item.types[0]
        guard let data = item.data(for: type) else {
            Output.error("the URL carries no \(type) (it has: \(item.types.map(\.rawValue).joined(separator: ", ")))")
            throw ExitCode.failure
        }
        writeOutput(data)
    }
}

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
