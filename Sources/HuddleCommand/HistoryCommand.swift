import ArgumentParser
import Foundation
import HuddleDaemon

/// `huddle history`: what the daemon received (docs/daemon.md, "History").
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List what the daemon received: files with where they went, texts with who sent them.",
        discussion: "From the data directory's history.json (the newest 500), whether or not the daemon runs."
    )

    @Option(help: ArgumentHelp("Only what this device sent.", valueName: "name")) var from: String?
    @Flag(help: "One JSON object per entry.") var json = false
    @OptionGroup var data: DataDirectoryOption

    func run() throws {
        let file = URL(fileURLWithPath: DaemonPaths.current(dataDirectory: data.url).historyFile)
        let (lines, warning) = HistoryText.output(file: file, from: from, json: json)
        for line in lines { Output.line(line) }
        if let warning {
            Output.error(warning)
            throw ExitCode.dataError
        }
    }
}
