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

    /// Starts the count for sending `offer` when the receiver asked for `needed`: what it did not ask for is done.
    init(offer: DirectoryOffer, needed: [TransferResumePoint], peer: PeerID, interval: UInt64) {
        let missing = needed.reduce(UInt64(0)) { $0 + offer.entries[Int($1.index)].size - $1.offset }
        id = offer.id
        self.peer = peer
        total = offer.totalSize
        completed = total - missing
        filesCompleted = offer.fileCount - needed.count
        fileCount = offer.fileCount
        startedAt = completed
        reportedAt = completed
        self.interval = interval
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
