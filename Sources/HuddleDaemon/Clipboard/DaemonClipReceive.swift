import HuddleApp
import NIOConcurrencyHelpers

/// `huddle clip receive` while the daemon syncs the clipboard (docs/daemon.md, "The clipboard"): the daemon hands it
/// the items shared with this machine; the command asks its user about each (the daemon's question, answered here)
/// and the daemon puts it on the clipboard or in the file.
public enum DaemonClipReceive {
    /// What the command asked for: `--from`, `--out` (an absolute path), `--type`, `--count`, `--yes`.
    public struct Wish: Sendable {
        public var from: String?
        public var out: String?
        public var type: String?
        public var count: Int?
        public var assumesYes: Bool

        public init(from: String?, out: String?, type: String?, count: Int?, assumesYes: Bool) {
            (self.from, self.out, self.type, self.count, self.assumesYes) = (from, out, type, count, assumesYes)
        }
    }

    /// The command's exit status; nil, with nothing said, when the daemon does not sync the clipboard.
    /// - Parameter confirm: asks the user a question's line, yes or no.
    /// - Throws: ``DaemonError`` when the daemon cannot be reached.
    public static func run(
        _ client: ControlClient,
        _ wish: Wish,
        confirm: @escaping @Sendable (String) async -> Bool,
        say: @escaping @Sendable (ControlReply) -> Void
    ) async throws -> Int32? {
        var request = ControlRequest(.clipReceive)
        (request.to, request.paths, request.itemType) = (wish.from.map { [$0] }, wish.out.map { [$0] }, wish.type)
        (request.count, request.accept) = (wish.count, wish.assumesYes ? true : nil)
        let asking = NIOLockedValueBox<[Task<Void, Never>]>([])
        defer { for task in asking.withLockedValue({ $0 }) { task.cancel() } }
        return try await client.ifSyncingClipboard(request) { reply in
            guard let question = reply.question, let line = reply.line else { return say(reply) }
            let task = Task {
                var answer = ControlRequest(.answer)
                (answer.question, answer.accept) = (question, await confirm(line))
                _ = try? await client.send(answer) { _ in }
            }
            asking.withLockedValue { $0.append(task) }
        }
    }
}
