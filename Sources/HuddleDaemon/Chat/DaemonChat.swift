import HuddleApp
import HuddleErrors

/// `huddle chat` while a daemon runs (docs/daemon.md, "Chat"): the command follows the daemon's chat on one
/// connection and hands each typed line to the daemon on another, so the chat uses the daemon's session instead of
/// starting a second one on the same ports.
public enum DaemonChat {
    /// Follows the chat, saying each of its lines, and sends `lines` until `/quit` or their end.
    /// - Throws: ``DaemonError`` when the daemon cannot be reached or goes away.
    public static func run(
        _ client: ControlClient,
        lines: AsyncStream<String>,
        say: @escaping @Sendable (String) -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                _ = try await client.send(ControlRequest(.chat)) { reply in
                    if let line = reply.line { say(line) }
                    if let error = reply.error { say("! \(error)") }
                }
                // The daemon ended the chat: it is stopping.
                throw DaemonError(.connectionLost, "the daemon stopped")
            }
            group.addTask {
                for await line in lines where ChatInput(line) != .nothing {
                    if ChatInput(line) == .quit { return }
                    var request = ControlRequest(.say)
                    request.text = line
                    _ = try await client.send(request) { reply in
                        if let error = reply.error { say("! \(error)") }
                    }
                }
            }
            // Whichever ends first ends the chat: input done, or the daemon gone (thrown).
            try await group.next()
            group.cancelAll()
        }
    }
}
