import Foundation

/// The outbox in words, one line per entry, for `huddle outbox` with or without a daemon.
public enum OutboxText {
    public static func lines(_ entries: [OutboxEntry]) -> [String] {
        guard !entries.isEmpty else { return ["The outbox is empty."] }
        let formatter = ISO8601DateFormatter()
        return entries.map { entry in
            var line =
                "\(entry.id)  \(entry.recipient)  \(entry.path)  (queued \(formatter.string(from: entry.queuedAt))"
            if entry.attempts > 0 { line += ", \(entry.attempts) tries, last: \(entry.lastError ?? "?")" }
            return line + ")"
        }
    }
}
