import HuddleApp

/// `huddle outbox` and `huddle outbox --cancel ID` answered from the queue: by the daemon, or by the command
/// itself when no daemon runs and so nobody else writes the queue (docs/daemon.md, "Outbox").
public enum OutboxDesk {
    /// Answers an `outbox` request with one line per queued path, a `cancel` request by taking its entry out.
    public static func answer(_ request: ControlRequest, store: OutboxStore, _ replies: ControlReplies) async -> Int32 {
        guard request.command == .cancel else {
            for line in OutboxText.lines(store.entries) { await replies.line(line) }
            return ExitStatus.success.rawValue
        }
        let id = request.id ?? ""
        do {
            guard try store.remove(id) else {
                await replies.error("nothing in the outbox has id \(id) (huddle outbox lists them)")
                return ExitStatus.usage.rawValue
            }
        } catch {
            await replies.error("\(error)")
            return ExitStatus.ioError.rawValue
        }
        await replies.line("cancelled \(id)")
        return ExitStatus.success.rawValue
    }
}
