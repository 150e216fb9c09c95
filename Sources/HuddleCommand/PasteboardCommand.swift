import ArgumentParser
import Foundation
import HuddlePasteboard

struct PasteboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pb",
        abstract: "Copy, paste and watch the clipboard, and hand data over through named pasteboards.",
        discussion: """
            Works on the desktop's own clipboard: X11 (spoken to directly; CLIPBOARD, or PRIMARY with \
            --primary), Wayland (through wl-copy / wl-paste) or macOS. With --name N the command works on a \
            named pasteboard instead: a file shared by your own programs (under $XDG_RUNTIME_DIR, or \
            $XDG_DATA_HOME with --persistent), readable without a desktop session.

            Types can be written as UTIs (public.png, public.utf8-plain-text), MIME types (image/png, \
            text/html) or X11 targets (UTF8_STRING); unknown types are passed through as they are.

            Examples:
              huddle pb copy notes.txt                   copy a file's text
              huddle pb copy shot.png                    copy an image (type from .png or the bytes)
              echo hi | huddle pb copy                   copy standard input
              huddle pb types                            list the types on offer
              huddle pb paste --type image/png > a.png   paste one type
              huddle pb watch --json                     print every copy as it happens
              huddle pb copy --name com.example.x f.pdf  hand a file to another program…
              huddle pb paste --name com.example.x --clear > f.pdf   …which takes it
            """,
        subcommands: [
            PasteboardTypesCommand.self, PasteboardPasteCommand.self, PasteboardCopyCommand.self,
            PasteboardWatchCommand.self, PasteboardListCommand.self, PasteboardClearCommand.self,
            PasteboardServeCommand.self,
        ]
    )
}

/// Options every clipboard command shares.
struct PasteboardTarget: ParsableArguments {
    @Option(help: ArgumentHelp("Use the named pasteboard N instead of the clipboard.", valueName: "N"))
    var name: String?

    @Flag(help: "Use the X11/Wayland PRIMARY selection (the last text selected) instead of CLIPBOARD.")
    var primary = false

    var selection: PasteboardSelection { self.primary ? .primary : .clipboard }

    func validate() throws {
        if let name {
            do { try NamedPasteboardStore.validate(name) } catch let error as PasteboardError {
                throw ValidationError(error.message)
            }
            if self.primary { throw ValidationError("--primary and --name cannot be used together") }
        }
    }
}

/// Reads a whole file, or standard input for `-` or nil.
func readInput(_ path: String?) throws -> Data {
    if path == nil || path == "-" {
        return FileHandle.standardInput.readDataToEndOfFile()
    }
    guard let data = FileManager.default.contents(atPath: path!) else {
        throw ValidationError("cannot read \(path!)")
    }
    return data
}

/// Writes bytes to standard output as they are.
func writeOutput(_ data: Data) {
    FileHandle.standardOutput.write(data)
}
