import ArgumentParser
import Foundation
import HuddleDaemon

/// `huddle outbox`: what waits for a paired device that was away.
struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "List the sends queued for devices that were away, or cancel one.",
        discussion: """
            huddle send to a paired device that is away queues the files while huddle daemon runs; the daemon \
            sends them when the device is back. Each line: the entry's id, the device, the path, when it was \
            queued and why the last try failed. Read from the data directory's outbox.json when no daemon runs.

              huddle outbox
              huddle outbox --cancel 3f9a02c1
            """
    )

    @Option(help: ArgumentHelp("Take this entry out of the queue.", valueName: "id")) var cancel: String?
    @OptionGroup var data: DataDirectoryOption

    func run() async throws {
        var request = ControlRequest(cancel == nil ? .outbox : .cancel)
        request.id = cancel
        if let client = await DaemonRoute.client(data) { return try await DaemonRoute.run(client, request) }
        let paths = DaemonPaths.current(dataDirectory: data.url)
        let store = try await CommandFailure.run { try OutboxStore(file: URL(fileURLWithPath: paths.outboxFile)) }
        let status = await OutboxDesk.answer(request, store: store, DaemonRoute.printing)
        if status != 0 { throw ExitCode(status) }
    }
}

/// `huddle answer`: the questions a daemon waits on.
struct AnswerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "answer",
        abstract: "Answer what the daemon asks: offers from devices that are not paired, connection requests.",
        discussion: """
            Without arguments, lists the questions waiting, each with its number. With a number and yes or no, \
            answers it. A question nobody answers is declined after 5 minutes.

              huddle answer
              huddle answer 2 yes
            """
    )

    @Argument(help: "The question's number.") var question: Int?
    @Argument(help: "yes or no.") var reply: String?
    @OptionGroup var data: DataDirectoryOption

    func validate() throws {
        if question != nil && !["yes", "no", "y", "n"].contains(reply?.lowercased() ?? "") {
            throw ValidationError("answer yes or no")
        }
    }

    func run() async throws {
        let client = try await DaemonRoute.required(data)
        var request = ControlRequest(question == nil ? .questions : .answer)
        request.question = question
        request.accept = reply.map { $0.lowercased().hasPrefix("y") }
        try await DaemonRoute.run(client, request)
    }
}
