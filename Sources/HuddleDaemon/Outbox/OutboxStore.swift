public import Foundation
import HuddleErrors
import NIOConcurrencyHelpers

/// The outbox on disk: every change written at once, atomically (a temporary file renamed over the old one), so a
/// daemon killed at any moment leaves the queue as it was before or after the change, never half of it.
public final class OutboxStore: Sendable {
    public let file: URL
    let state: NIOLockedValueBox<OutboxFile>

    /// Reads `file` (none yet: an empty queue).
    ///
    /// - Throws: ``DaemonError/Code/storage`` when it exists but cannot be read or is not an outbox; it is left
    ///   as it is, so nothing queued is lost to a daemon that starts over it.
    public init(file: URL) throws {
        self.file = file
        guard let bytes = FileManager.default.contents(atPath: file.path) else {
            state = NIOLockedValueBox(OutboxFile())
            return
        }
        do {
            let read = try DaemonJSONFile.decode(OutboxFile.self, from: bytes)
            guard read.version == OutboxFile.version else {
                throw DaemonError(.storage, "version \(read.version), this huddle reads \(OutboxFile.version)")
            }
            state = NIOLockedValueBox(read)
        } catch {
            throw DaemonError(
                .storage,
                "the outbox \(file.path) cannot be read (\(error)); move it away to start with an empty one"
            )
        }
    }

    public var entries: [OutboxEntry] { state.withLockedValue { $0.entries } }

    /// Adds entries and writes the queue.
    public func add(_ entries: [OutboxEntry]) throws {
        try change { $0.entries += entries }
    }

    /// Where the web page's uploads wait (docs/web.md, "Sending"): `uploads/` beside the outbox's file, one folder
    /// per file.
    public var uploads: URL { file.deletingLastPathComponent().appendingPathComponent("uploads") }

    /// Takes the entry `id` out (delivered or cancelled); false when there is none. A file the page uploaded for it
    /// goes with it: nobody else has it.
    @discardableResult
    public func remove(_ id: String) throws -> Bool {
        var removed: OutboxEntry?
        try change { file in
            removed = file.entries.first { $0.id == id }
            file.entries.removeAll { $0.id == id }
        }
        if let removed, let folder = upload(removed.path) { try? FileManager.default.removeItem(at: folder) }
        return removed != nil
    }

    /// The upload folder that holds `path`, when it is one (`uploads/ID/NAME`).
    func upload(_ path: String) -> URL? {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        return folder.deletingLastPathComponent().standardizedFileURL.path == uploads.standardizedFileURL.path
            ? folder : nil
    }

    /// Records a failed delivery of `id`.
    public func failed(_ id: String, error: String) throws {
        try change { file in
            guard let index = file.entries.firstIndex(where: { $0.id == id }) else { return }
            file.entries[index].attempts += 1
            file.entries[index].lastError = error
        }
    }

    /// Applies `body` and writes the result; when the write fails the queue in memory stays as it was on disk.
    func change(_ body: (inout OutboxFile) -> Void) throws {
        try state.withLockedValue { current in
            var next = current
            body(&next)
            try DaemonJSONFile.write(next, to: file, what: "the outbox")
            current = next
        }
    }
}
