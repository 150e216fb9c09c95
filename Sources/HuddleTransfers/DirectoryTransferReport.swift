public import HuddleWire

/// What a directory transfer did, as the sender saw it.
public struct DirectoryTransferReport: Hashable, Sendable {
    public let id: TransferID
    /// Files in the directory, and how many of them had bytes sent in this run. The receiver had the rest; those
    /// of an earlier run were still checked against the SHA-256 computed here, which went without their bytes.
    public let fileCount: Int
    public let filesSent: Int
    /// Bytes of all files, and the bytes of file data actually sent in this run.
    public let totalSize: UInt64
    public let bytesSent: UInt64
    /// Relative paths of symbolic links and special files in the tree, which are never sent.
    public let skipped: [String]

    package init(
        id: TransferID,
        fileCount: Int,
        filesSent: Int,
        totalSize: UInt64,
        bytesSent: UInt64,
        skipped: [String]
    ) {
        self.id = id
        self.fileCount = fileCount
        self.filesSent = filesSent
        self.totalSize = totalSize
        self.bytesSent = bytesSent
        self.skipped = skipped
    }
}
