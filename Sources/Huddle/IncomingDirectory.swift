import Foundation
import HuddleWire

/// Incremental state of a directory being received: which files are still expected (each from its offset), the
/// one file being written now, and the byte and file counts for progress.
final class IncomingDirectory {
    let transfer: IncomingTransfer
    let staging: DirectoryStaging
    /// Files still expected: entry index → bytes of it already present.
    var remaining: [UInt32: UInt64]
    /// The file being written: the sender sends one file after another.
    var current: OpenEntry?
    /// Files whose last bytes are being written and checked (their ENTRY-END came); END waits for them.
    var closing = 0
    /// END came while files were still closing: the tree finishes when the last of them is done.
    var endReceived = false
    /// The transfer ended while files were still closing: this event goes out when the last of them is done, so
    /// whoever hears of it finds on disk every file that was checked and named.
    var endedEvent: PeerSessionEvent?
    /// Bytes of all files present (verified, or written to their parts).
    var completed: UInt64
    let startedAt: UInt64
    var reportedAt: UInt64
    var filesCompleted: Int

    /// A file's part, open for writing through its sink (the same kind a single file is written through).
    struct OpenEntry {
        let index: UInt32
        let sink: TransferFileSink
        /// Its bytes and the rules they follow (its progress counts in the tree's).
        var bytes: IncomingBytes

        var written: UInt64 { bytes.written }
    }

    init(transfer: IncomingTransfer, staging: DirectoryStaging, needed: [TransferResumePoint], present: UInt64) {
        self.transfer = transfer
        self.staging = staging
        remaining = Dictionary(needed.map { ($0.index, $0.offset) }) { first, _ in first }
        completed = present
        startedAt = present
        reportedAt = present
        filesCompleted = transfer.fileCount - needed.count
    }

    var offer: DirectoryOffer { staging.offer }

    func progress(of entry: OpenEntry) -> TransferProgress {
        TransferProgress(
            id: transfer.id,
            peer: transfer.peer,
            direction: .receiving,
            completed: completed,
            total: transfer.size,
            startedAt: startedAt,
            file: TransferFileProgress(
                path: offer.entries[Int(entry.index)].path,
                completed: entry.written,
                total: offer.entries[Int(entry.index)].size,
                filesCompleted: filesCompleted,
                fileCount: transfer.fileCount
            )
        )
    }
}
