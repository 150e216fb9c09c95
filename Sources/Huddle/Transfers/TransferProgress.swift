public import HuddleWire

/// Which way a transfer goes.
public enum TransferDirection: Hashable, Sendable {
    case sending, receiving
}

/// Where a transfer stands.
public struct TransferProgress: Hashable, Sendable {
    public let id: TransferID
    public let peer: PeerID
    public let direction: TransferDirection
    /// Bytes of the file verified present at the receiver (resumed bytes included).
    public let completed: UInt64
    public let total: UInt64
    /// Where this run started (non-zero when it resumed a partial file, or found files of a directory present).
    public let startedAt: UInt64
    /// For a directory: the file being sent or received now, and how many files are done.
    public var file: TransferFileProgress? = nil
}

/// Where one file of a directory transfer stands, and the directory's count of files.
public struct TransferFileProgress: Hashable, Sendable {
    /// The file's path relative to the directory, `/`-separated.
    public let path: String
    public let completed: UInt64
    public let total: UInt64
    /// Files of the directory complete (verified by the receiver, or sent in full by the sender) so far.
    public let filesCompleted: Int
    public let fileCount: Int
}
