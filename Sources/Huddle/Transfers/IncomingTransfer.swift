public import HuddleWire

/// A file or directory a peer offers to send: answer with ``PeerSession/acceptTransfer(_:into:)`` (or, for a
/// file, ``PeerSession/acceptTransferIntoMemory(_:)``) or ``PeerSession/declineTransfer(_:reason:)``.
public struct IncomingTransfer: Hashable, Sendable {
    public let id: TransferID
    public let peer: PeerID
    /// The file or directory name, checked by ``TransferName`` (no paths, no control characters, no device
    /// names). A directory's entries were all checked too (``DirectoryOffer/validate(limits:)``).
    public let name: String
    /// Bytes of the file, or of all files of the directory.
    public let size: UInt64
    /// What a resume of this content is matched by, hex. For a file, the sender's
    /// ``HuddleWire/TransferOffer/resumeKey`` (from its size, modification time and first and last MiB; the whole
    /// file's SHA-256 comes at the end and is checked before the file is kept); for a directory, the SHA-256 of its
    /// manifest (which lists each file's resume key; each file's SHA-256 follows its data and is checked then).
    public let contentKey: String
    public let type: String
    /// Whether a whole directory is offered.
    public let isDirectory: Bool
    /// How many files: 1 for a file, the number of files in the tree for a directory.
    public let fileCount: Int
}
