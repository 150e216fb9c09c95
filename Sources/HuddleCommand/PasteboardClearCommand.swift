import ArgumentParser
import Foundation
import HuddlePasteboard

struct PasteboardClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Remove a named pasteboard.",
        discussion: "Exits 1 when there is no pasteboard of that name."
    )

    @Option(help: ArgumentHelp("The named pasteboard to remove.", valueName: "N"))
    var name: String

    func validate() throws {
        do { try NamedPasteboardStore.validate(self.name) } catch let error as PasteboardError {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        let removed = try await CommandFailure.run { try NamedPasteboardStore().remove(name: self.name) }
        guard removed else {
            Output.error("no pasteboard named \"\(self.name)\"")
            throw ExitCode.failure
        }
    }
}
