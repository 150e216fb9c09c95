import Foundation
public import HuddleWire
import NIOCore

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
    /// Bandwidth limits on transfer data, sent and received, in total and per device (none by default).
    public var rateLimits = TransferRateLimits()
    /// Bounds on directory offers: entries, manifest bytes, path length and depth, total size.
    public var manifestLimits = DirectoryManifestLimits()
    public init() {}
}
