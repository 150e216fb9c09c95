import ArgumentParser
import Foundation
import HuddlePasteboard

struct PasteboardCopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Put a file (or standard input) on the clipboard or in a named pasteboard.",
        discussion: """
            The type comes from --type, else the file's extension, else the data's signature (PNG, JPEG, GIF, \
            PDF), else UTF-8 text. --also TYPE=FILE adds more representations of the same item (an image as \
            PNG and JPEG, a link as HTML and text): a pasting program takes the one it wants.

            On X11 the data lives in the program that copied it, so `copy` returns at once and leaves a small \
            background process (`huddle pb serve`) answering paste requests until something else is copied — as \
            xclip does. --foreground serves from this process instead, until then. On Wayland, wl-copy does the \
            same on its own.
            """
    )

    @Argument(help: ArgumentHelp("The file to copy; - or nothing for standard input.", valueName: "file"))
    var file: String?

    @Option(help: ArgumentHelp("The type of the data (image/png, public.html, …).", valueName: "T"))
    var type: String?

    @Option(help: ArgumentHelp("Another representation, as TYPE=FILE (repeatable).", valueName: "type=file"))
    var also: [String] = []

    @Flag(help: "Serve the clipboard from this process until another program copies (X11).")
    var foreground = false

    @Flag(help: "With --name: keep the pasteboard across logouts (in $XDG_DATA_HOME).")
    var persistent = false

    @Option(help: ArgumentHelp("With --name: the pasteboard expires after this many seconds.", valueName: "s"))
    var expires: Double?

    @OptionGroup var target: PasteboardTarget

    func validate() throws {
        for entry in self.also where !entry.contains("=") {
            throw ValidationError("--also takes TYPE=FILE, e.g. --also text/html=page.html")
        }
        if self.target.name == nil && (self.persistent || self.expires != nil) {
            throw ValidationError("--persistent and --expires apply to named pasteboards: add --name")
        }
        if let expires = self.expires, !(expires > 0) { throw ValidationError("--expires must be positive") }
    }

    func run() async throws {
        let item = try self.buildItem()
        try await CommandFailure.run {
            if let name = self.target.name {
                try NamedPasteboardStore().write(
                    item,
                    name: name,
                    persistent: self.persistent,
                    expires: self.expires.map { Date().addingTimeInterval($0) }
                )
                return
            }
            let pasteboard = try SystemPasteboard.make()
            #if os(Linux)
            if let x11 = pasteboard as? X11Pasteboard {
                if self.foreground {
                    try x11.writeNow(item, to: self.target.selection)
                    x11.waitUntilReplaced(self.target.selection)
                } else {
                    try BackgroundOwner.start(item: item, selection: self.target.selection)
                }
                return
            }
            #endif
            try await pasteboard.write(item, to: self.target.selection)
        }
    }

    /// The item from the file and the --also representations.
    func buildItem() throws -> PasteboardItem {
        let data = try readInput(self.file)
        let type = self.type.map(PasteboardType.init(rawValue:)) ?? .guess(data: data, fileName: self.file)
        var item = PasteboardItem(type: type, data: data)
        for entry in self.also {
            let parts = entry.split(separator: "=", maxSplits: 1)
            item.setData(try readInput(String(parts[1])), for: PasteboardType(String(parts[0])))
        }
        return item
    }
}

/// `huddle pb serve`: the background owner `copy` starts on X11. Not for direct use.
struct PasteboardServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve an item read from standard input on the X11 clipboard (started by `copy`).",
        shouldDisplay: false
    )

    @Flag(help: "Serve PRIMARY instead of CLIPBOARD.")
    var primary = false

    func run() async throws {
        #if os(Linux)
        let selection: PasteboardSelection = self.primary ? .primary : .clipboard
        let reply = FileHandle.standardOutput
        do {
            let archive = try PasteboardItemArchive(decoding: FileHandle.standardInput.readDataToEndOfFile())
            let pasteboard = try X11Pasteboard()
            try pasteboard.writeNow(archive.item, to: selection)
            reply.write(Data("ready\n".utf8))
            try? reply.close()
            pasteboard.waitUntilReplaced(selection)
        } catch {
            reply.write(Data("error: \(error)\n".utf8))
            throw ExitCode.failure
        }
        #else
        throw ExitCode.unavailable
        #endif
    }
}
