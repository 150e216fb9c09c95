import ArgumentParser
import Foundation
import HuddleClipboard
import HuddlePasteboard

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
