import ArgumentParser
import Foundation
import HuddlePasteboard

struct PasteboardPasteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paste",
        abstract: "Write one type of the clipboard (or a named pasteboard) to standard output, byte for byte.",
        discussion: """
            Without --type: UTF-8 text when it is offered, otherwise the first type on offer. Exits 1 with a \
            message listing what is on offer when the type is not.
            """
    )

    @Option(help: ArgumentHelp("The type to paste (image/png, public.html, UTF8_STRING, …).", valueName: "T"))
    var type: String?

    @Flag(help: "With --name: remove the pasteboard in the same step, so only one reader gets it.")
    var clear = false

    @OptionGroup var target: PasteboardTarget

    func validate() throws {
        if self.clear && self.target.name == nil { throw ValidationError("--clear needs --name") }
    }

    func run() async throws {
        let requested = self.type.map(PasteboardType.init(rawValue:))
        let data = try await CommandFailure.run { () -> Data in
            if let name = self.target.name {
                let store = NamedPasteboardStore()
                let item = self.clear ? try store.readAndClear(name: name) : try store.read(name: name)
                let type = requested ?? (item.data(for: .utf8PlainText) != nil ? .utf8PlainText : item.types.first!)
                guard let data = item.data(for: type) else {
                    let offered = item.types.map(\.rawValue).joined(separator: ", ")
                    throw PasteboardError(.typeNotOffered, "\"\(name)\" has no \(type) (it has: \(offered))")
                }
                return data
            }
            let pasteboard = try SystemPasteboard.make()
            if let requested { return try await pasteboard.data(for: requested, in: self.target.selection) }
            let offered = try await pasteboard.types(in: self.target.selection)
            guard let first = offered.first else {
                throw PasteboardError(.empty, "the clipboard is empty")
            }
            let text = offered.first { $0.canonical == .utf8PlainText || $0.canonical == .plainText }
            return try await pasteboard.data(for: text != nil ? .utf8PlainText : first, in: self.target.selection)
        }
        writeOutput(data)
    }
}
