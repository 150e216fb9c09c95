/// `huddle send --json` through the daemon, for a path put in the outbox: `{"event": "queued", "file": …,
/// "peer": …, "id": …, "reason": …}` (docs/daemon.md, "Outbox").
public struct QueuedRecord: Encodable, Sendable, Equatable {
    public var event = "queued"
    /// The path as queued (absolute).
    public var file: String
    /// The device it waits for, by the name the send gave.
    public var peer: String
    /// The outbox entry's id, for `huddle outbox --cancel`.
    public var id: String
    /// Why it was not sent now.
    public var reason: String

    public init(_ entry: OutboxEntry, reason: String) {
        (file, peer, id, self.reason) = (entry.path, entry.recipient, entry.id, reason)
    }
}
