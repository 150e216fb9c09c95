import Foundation
import HuddleErrors
import NIOConcurrencyHelpers

/// `huddle peers` while a daemon runs (docs/daemon.md, "Peers"): the daemon's devices, shown again whenever they
/// change, and its questions as they come (looked at every `interval`); a typed number connects to a device through
/// the daemon, `y N` / `n N` answers question N, `/quit` or the end of input leaves.
public enum DaemonPeers {
    /// - Throws: ``DaemonError`` when the daemon cannot be reached or goes away.
    public static func run(
        _ client: ControlClient,
        lines: AsyncStream<String>,
        interval: Duration = .seconds(1),
        say: @escaping @Sendable (String) -> Void
    ) async throws {
        let picker = NIOLockedValueBox(DevicePicker())
        try await look(client, picker, say)
        say(DevicePicker.help)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while true {
                    try await Task.sleep(for: interval)
                    try await look(client, picker, say)
                }
            }
            group.addTask {
                for await line in lines {
                    let (action, words) = picker.withLockedValue { $0.read(line) }
                    words.forEach(say)
                    switch action {
                    case .quit: return
                    case .connect(let name):
                        var request = ControlRequest(.connect)
                        request.to = [name]
                        Task { _ = try? await client.send(request) { spoken($0).map(say) } }
                    case .answer(let id, let accept):
                        var request = ControlRequest(.answer)
                        (request.question, request.accept) = (id, accept)
                        _ = try await client.send(request) { spoken($0).map(say) }
                    case nil: continue
                    }
                }
            }
            // Whichever ends first: the input (or /quit), or the daemon gone (thrown).
            try await group.next()
            group.cancelAll()
        }
    }

    /// A reply's words: its line, or its error marked.
    static func spoken(_ reply: ControlReply) -> String? { reply.line ?? reply.error.map { "! \($0)" } }

    /// Asks the daemon for its devices and questions, and says what changed.
    static func look(
        _ client: ControlClient,
        _ picker: NIOLockedValueBox<DevicePicker>,
        _ say: @Sendable (String) -> Void
    )
        async throws
    {
        let devices = try await client.devices()
        let questions = NIOLockedValueBox<[DevicePicker.Question]>([])
        var request = ControlRequest(.questions)
        request.json = true
        _ = try await client.send(request) { reply in
            guard let record = reply.record,
                let question = try? JSONDecoder().decode(DevicePicker.Question.self, from: Data(record.utf8))
            else { return }
            questions.withLockedValue { $0.append(question) }
        }
        let waiting = questions.withLockedValue { $0 }
        let said = picker.withLockedValue { $0.show(devices) + $0.show(questions: waiting) }
        said.forEach(say)
    }
}
