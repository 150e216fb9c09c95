import ArgumentParser
import Foundation
import HuddleClipboard
import HuddlePasteboard

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
