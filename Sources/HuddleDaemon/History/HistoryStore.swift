public import Foundation
import NIOConcurrencyHelpers

/// What the daemon received, on disk (docs/daemon.md, "History"): the newest ``limit`` entries, each change written
/// at once and atomically. A history that cannot be read is moved aside (`history.json.unreadable`), never
/// written over, and a new one begun: it is a record, not something a send depends on.
public final class HistoryStore: Sendable {
    public static let limit = 500
    public let file: URL
    let state: NIOLockedValueBox<HistoryFile>
    /// What went wrong reading the file, when it was moved aside (for the daemon's log).
    public let trouble: String?

    public init(file: URL) {
        self.file = file
        var trouble: String?
        var read = HistoryFile()
        if let entries = Self.read(file) {
            read.entries = entries
        } else {
            let aside = file.path + ".unreadable"
            try? FileManager.default.removeItem(atPath: aside)
            try? FileManager.default.moveItem(atPath: file.path, toPath: aside)
            trouble = "the history \(file.path) could not be read: moved to \(aside), a new one begun"
        }
        state = NIOLockedValueBox(read)
        self.trouble = trouble
    }

    /// The entries of the history at `file`, without changing it: none when there is no file, nil when it cannot
    /// be read or is not a history of this version.
    public static func read(_ file: URL) -> [HistoryEntry]? {
        guard let bytes = FileManager.default.contents(atPath: file.path) else {
            return FileManager.default.fileExists(atPath: file.path) ? nil : []
        }
        guard let decoded = try? DaemonJSONFile.decode(HistoryFile.self, from: bytes),
            decoded.version == HistoryFile.version
        else { return nil }
        return decoded.entries
    }

    /// The history, oldest first.
    public var entries: [HistoryEntry] { state.withLockedValue { $0.entries } }

    /// Adds an entry (dropping the oldest past ``limit``) and writes the history.
    public func add(_ entry: HistoryEntry) throws {
        try state.withLockedValue { current in
            var next = current
            next.entries.append(entry)
            if next.entries.count > Self.limit { next.entries.removeFirst(next.entries.count - Self.limit) }
            try DaemonJSONFile.write(next, to: file, what: "the history")
            current = next
        }
    }
}
