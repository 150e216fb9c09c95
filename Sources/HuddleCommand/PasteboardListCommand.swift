import ArgumentParser
import Foundation
import HuddleApp
import HuddlePasteboard

struct PasteboardListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the named pasteboards: name, kind, size, types, expiry."
    )

    @Flag(help: "Print one JSON object per line.")
    var json = false

    func run() async throws {
        let list = try await CommandFailure.run { try NamedPasteboardStore().list() }
        if self.json {
            for info in list { Output.json(PasteboardInfoRecord(info)) }
            return
        }
        guard !list.isEmpty else { return Output.line("No named pasteboards.") }
        Output.line([pad("NAME", 28), pad("KIND", 10), pad("BYTES", 10), "TYPES"].joined(separator: " "))
        for info in list {
            var types = info.types.map(\.rawValue).joined(separator: ", ")
            if info.isSecret { types += " (secret)" }
            if let expires = info.expires { types += " — expires in \(Int(expires.timeIntervalSinceNow.rounded()))s" }
            Output.line(
                [
                    pad(info.name, 28), pad(info.persistent ? "persistent" : "session", 10),
                    pad("\(info.byteCount)", 10), types,
                ]
                .joined(separator: " ")
            )
        }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
