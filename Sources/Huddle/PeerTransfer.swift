import Foundation
public import HuddleWire
import NIOCore

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

/// Limits and places of transfers.
public struct TransferConfiguration: Hashable, Sendable {
    /// Bytes of file per CHUNK message (60 KiB): with its 25-byte header it fits one 64 KiB frame
    /// (``PeerConnectionConfiguration/maximumFramePayload``), and it must fit
    /// ``PeerConnectionConfiguration/maximumMessageSize`` (checked when a session starts).
    public var chunkSize = 60 * 1024
    /// How long a sender waits for the receiver to accept or decline an offer; then the offer is withdrawn (the
    /// receiver gets `.transferFailed` for it) and the send throws ``PeerSessionError/transferNotAnswered(after:)``.
    public var decisionTimeout: Duration = .seconds(300)
    /// The largest offer ``PeerSession/acceptTransferIntoMemory(_:)`` takes (64 MiB): a photo or a document fits
    /// easily, and a peer cannot make the receiver hold more than this in memory per transfer.
    public var maximumInMemorySize: UInt64 = 64 * 1024 * 1024
    /// The bytes all transfers into memory may hold together, from every peer (256 MiB). Accepting an offer into
    /// memory reserves its whole size until the transfer ends; an offer that does not fit is refused with
    /// ``PeerSessionError/inMemoryBudgetExhausted(budget:reserved:size:)`` and stays open (accept it into a
    /// directory or decline it). So many peers, or one peer with many offers, cannot make the receiver hold more.
    public var maximumInMemoryBytes: UInt64 = 256 * 1024 * 1024
    /// Incoming transfers one peer may have at once, offered (not yet answered) or under way, files and
    /// directories together (16). An offer beyond it is declined at once, before anyone is asked.
    public var maximumIncomingTransfersPerPeer = 16
    /// Transfer data received but not yet written to disk, for all incoming transfers together (4 MiB): past it
    /// the session stops reading from the connection that brought it (TCP then holds the sender back) and reads
    /// again when half of it has been written. The receiver's memory for transfers stays near this bound however
    /// large the file and however slow the disk.
    public var maximumBufferedBytes = 4 * 1024 * 1024
    /// Received file data is gathered into writes of this size (1 MiB), written and hashed away from the session:
    /// fewer system calls than one write per chunk, and a quarter of ``maximumBufferedBytes`` so that the socket
    /// keeps reading while a write is under way.
    public var writeSize = 1024 * 1024
    /// A progress event every this many bytes of a transfer (1 MiB), and one at its end.
    public var progressInterval = 1024 * 1024
    /// Transfer data a sender hands to the connection before it waits for the socket to take it (1 MiB): enough
    /// for a hundred small files between waits, and little memory.
    public var sendWindow = 1024 * 1024
    /// Bounds on directory offers: entries, manifest bytes, path length and depth, total size.
    public var manifestLimits = DirectoryManifestLimits()
    public init() {}
}

/// Incremental state of a file being received.
final class IncomingFile {
    /// Where the bytes go: a hidden partial file beside the final name, through its writer, or memory.
    enum Sink {
        case file(writer: TransferWriter, partial: URL, directory: URL)
        case memory
    }

    let transfer: IncomingTransfer
    let offer: TransferOffer
    let sink: Sink
    /// The bytes so far, for a transfer into memory.
    var memory = Data()
    /// The hash so far, for a transfer into memory (a file's writer keeps its own).
    var hasher: FileHasher
    /// Chunks received for the writer and not yet handed to it, gathered into one larger write.
    var pending = ByteBuffer()
    /// Which file the partial file is (device and inode, from the open descriptor): what gets the final name
    /// must be that file.
    var partialIdentity: FileIdentity?
    /// Bytes received so far, resumed bytes included.
    var written: UInt64
    var reportedAt: UInt64
    let startedAt: UInt64

    init(transfer: IncomingTransfer, offer: TransferOffer, sink: Sink, hasher: FileHasher, written: UInt64) {
        self.transfer = transfer
        self.offer = offer
        self.sink = sink
        self.hasher = hasher
        self.written = written
        self.reportedAt = written
        self.startedAt = written
    }
}

extension IncomingFile {
    /// The partial file, for a transfer into a file.
    var partial: URL? {
        if case .file(_, let partial, _) = sink { return partial }
        return nil
    }

    /// Hands the gathered chunks to the writer.
    func flushPending() {
        guard case .file(let writer, _, _) = sink, pending.readableBytes > 0 else { return }
        writer.write(pending)
        pending = ByteBuffer()
    }

}

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
}
