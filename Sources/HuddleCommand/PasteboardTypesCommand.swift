import ArgumentParser
import Foundation
import HuddlePasteboard

struct PasteboardTypesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types",
        abstract: "List the types on offer, one per line, in the owner's order."
    )

    @OptionGroup var target: PasteboardTarget

    func run() async throws {
        let types = try await CommandFailure.run { () -> [PasteboardType] in
            if let name = self.target.name {
                return try NamedPasteboardStore().read(name: name).types
            }
            return try await SystemPasteboard.make().types(in: self.target.selection)
        }
        for type in types { Output.line(type.rawValue) }
    }
}
