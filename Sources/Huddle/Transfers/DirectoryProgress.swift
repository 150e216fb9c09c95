import HuddleWire

/// The sender's running count for a directory: a progress event at the end of each file and every MiB.
struct DirectoryProgress {
    let id: TransferID
    let peer: PeerID
    let total: UInt64
    var completed: UInt64
    var filesCompleted: Int
    let fileCount: Int
    let startedAt: UInt64
    var reportedAt: UInt64
    /// ``TransferConfiguration/progressInterval``.
    let interval: UInt64

    init(
        id: TransferID,
        peer: PeerID,
        total: UInt64,
        completed: UInt64,
        filesCompleted: Int,
        fileCount: Int,
        interval: UInt64
    ) {
        self.id = id
        self.interval = interval
        self.peer = peer
        self.total = total
        self.completed = completed
        self.filesCompleted = filesCompleted
        self.fileCount = fileCount
        self.startedAt = completed
        self.reportedAt = completed
    }

    /// Counts `bytes` more of `entry`, now at `position`; returns an event when one is due.
    mutating func advance(by bytes: UInt64, in entry: DirectoryEntry, at position: UInt64) -> TransferProgress? {
        completed += bytes
        let done = position == entry.size
        if done { filesCompleted += 1 }
        guard done || completed - reportedAt >= interval else { return nil }
        reportedAt = completed
        return TransferProgress(
            id: id,
            peer: peer,
            direction: .sending,
            completed: completed,
            total: total,
            startedAt: startedAt,
            file: TransferFileProgress(
                path: entry.path,
                completed: position,
                total: entry.size,
                filesCompleted: filesCompleted,
                fileCount: fileCount
            )
        )
    }
}
