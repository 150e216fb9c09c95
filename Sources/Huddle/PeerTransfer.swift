import Foundation
public import HuddleWire

/// A file a peer offers to send: answer with ``PeerSession/acceptTransfer(_:into:)`` or
/// ``PeerSession/declineTransfer(_:)``.
public struct IncomingTransfer: Hashable, Sendable {
    public let id: TransferID
    public let peer: PeerID
    /// The file name, checked by ``TransferName`` (no paths, no control characters, no device names).
    public let name: String
    public let size: UInt64
    /// SHA-256 of the whole file, hex.
    public let sha256: String
    public let type: String
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
    /// Where this run started (non-zero when it resumed a partial file).
    public let startedAt: UInt64
}

/// Limits and places of transfers.
public struct TransferConfiguration: Hashable, Sendable {
    /// Bytes of file per chunk message (one frame each).
    public var chunkSize = 60 * 1024
    /// How long a sender waits for the receiver to accept or decline.
    public var decisionTimeout: Duration = .seconds(300)
    public init() {}
}

/// Incremental state of a file being received.
final class IncomingFile {
    let transfer: IncomingTransfer
    let offer: TransferOffer
    let partial: URL
    let directory: URL
    let handle: FileHandle
    var hasher: FileHasher
    var written: UInt64
    var reportedAt: UInt64
    let startedAt: UInt64

    init(
        transfer: IncomingTransfer,
        offer: TransferOffer,
        partial: URL,
        directory: URL,
        handle: FileHandle,
        hasher: FileHasher,
        written: UInt64
    ) {
        self.transfer = transfer
        self.offer = offer
        self.partial = partial
        self.directory = directory
        self.handle = handle
        self.hasher = hasher
        self.written = written
        self.reportedAt = written
        self.startedAt = written
    }
}
