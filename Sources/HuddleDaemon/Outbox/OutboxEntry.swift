public import Foundation

/// One file or directory waiting for a paired device that was away when it was sent (docs/daemon.md, "Outbox").
/// A send of several paths is several entries, so each one leaves the queue as soon as it is delivered.
public struct OutboxEntry: Codable, Sendable, Equatable, Identifiable {
    /// Eight hex digits, unique in the queue: what `huddle outbox --cancel` takes.
    public var id: String
    /// The name it was sent to, as the user gave it.
    public var recipient: String
    /// The paired device it goes to (its full ID): only that key, not the name, receives it.
    public var deviceID: String
    /// The absolute path of the file or directory, read when it is delivered (not copied when queued).
    public var path: String
    public var queuedAt: Date
    /// How many deliveries were tried, and why the last failed.
    public var attempts = 0
    public var lastError: String?

    public init(id: String, recipient: String, deviceID: String, path: String, queuedAt: Date) {
        (self.id, self.recipient, self.deviceID, self.path, self.queuedAt) = (id, recipient, deviceID, path, queuedAt)
    }
}

/// The outbox as kept on disk: `outbox.json` in the data directory, `{"version": 1, "entries": [...]}`.
public struct OutboxFile: Codable, Sendable, Equatable {
    public static let version = 1
    public var version = OutboxFile.version
    public var entries: [OutboxEntry] = []

    public init(entries: [OutboxEntry] = []) { self.entries = entries }
}
