public import Foundation
public import HuddleBase
public import HuddleWire

/// Transfers: what the session offers its callers; ``SessionTransfers`` does the work.
extension PeerSession {
    /// The pacers of the session's total limits each way (``TransferRateLimits/sending``, `receiving`; none
    /// without), for the foreign protocols started beside it: what they move counts against the same limit.
    public nonisolated var transferPacers: TransferPacers { flow.pacing.totals }

    /// Sends the file at `url` to `peer`: offered by name, size and resume key, streamed from disk in chunks with
    /// bounded memory and hashed as it goes, then verified by the receiver against that SHA-256 before it keeps
    /// it. When the receiver still has part of the same content from an interrupted transfer, only the rest is
    /// sent (the part it has is hashed here from disk, so the SHA-256 covers the whole file).
    ///
    /// Progress arrives as ``PeerSessionEvent/transferProgress(_:)``.
    /// - Returns: when the receiver has verified and kept the file.
    /// - Throws: ``PeerSessionError``: `.transferDeclined`, `.transferFailed` (also when the file changes size or
    ///   modification time while being sent), `.notConnected`, file errors.
    @discardableResult
    public func sendFile(at url: URL, to peer: PeerID, type: String = "") async throws -> TransferID {
        try await transfers.sendFile(at: url, to: peer, type: type)
    }

    /// Starts sending the file at `url` to `peer` (as ``sendFile(at:to:type:)``) and hands back at once its ID, its
    /// progress and a way to cancel it; ``FileSending/value`` waits for the end.
    public nonisolated func startSendingFile(at url: URL, to peer: PeerID, type: String = "") -> FileSending {
        transfers.startSendingFile(at: url, to: peer, type: type)
    }

    /// Accepts an offered file or directory into `directory`.
    ///
    /// A file is written to a hidden partial file there (kept if the transfer breaks, so the next offer of the
    /// same content resumes), checked against the SHA-256 the sender gives at the end, then renamed to a name
    /// that does not exist yet (`name (2).ext`, …) — nothing is ever overwritten.
    ///
    /// A directory is built in a hidden staging directory there: each file is checked against its own SHA-256
    /// before it gets its name in the tree, and the finished tree is renamed to the offered name (or `name (2)`, …)
    /// only when every file is verified. A later offer of the same directory from the same device continues from
    /// the staging directory: files it has complete are not sent again (each is still checked against the SHA-256
    /// the sender computes now), partial ones resume.
    public func acceptTransfer(_ transfer: IncomingTransfer, into directory: URL) throws {
        let sender = machine.verifiedDevice(of: transfer.peer)
        try transfers.assumeIsolated { try $0.acceptTransfer(transfer, into: directory, sender: sender) }
    }

    /// Declines an offered file or directory; the sender's call throws `.transferDeclined`.
    public func declineTransfer(_ transfer: IncomingTransfer, reason: String = "declined") {
        transfers.assumeIsolated { $0.declineTransfer(transfer, reason: reason) }
    }

    /// Stops a transfer from either side: the other side is told (CANCEL), the sender's call throws `.cancelled`,
    /// and the receiver keeps its partial file (or staging directory) for a later resume.
    public func cancelTransfer(_ id: TransferID) {
        transfers.assumeIsolated { $0.cancelTransfer(id) }
    }

    /// Sends the directory at `url`, recursively and with its structure, to `peer`.
    ///
    /// The offer carries the whole manifest (paths, sizes, resume keys — a key reads at most the first and last MiB
    /// of a file), so the receiver answers once with the files it still needs — a tree it partly has from an
    /// interrupted run costs only what is missing, even if some files changed since — and the files follow back
    /// to back, without a round trip each. Each file is hashed while it is sent and its SHA-256 follows its last
    /// chunk; the receiver checks it before the file gets its name, and moves the tree into place when all are
    /// verified. Symbolic links and special files are not sent (see ``DirectoryTransferReport/skipped``).
    ///
    /// Progress arrives as ``PeerSessionEvent/transferProgress(_:)`` with ``TransferProgress/file`` set.
    /// - Returns: when the receiver has verified every file: what was sent.
    /// - Throws: ``PeerSessionError``: `.transferDeclined`, `.transferFailed` (also when the tree is over the
    ///   manifest limits, or a file changed while being sent), `.notConnected`, file errors.
    @discardableResult
    public func sendDirectory(at url: URL, to peer: PeerID, type: String = "") async throws -> DirectoryTransferReport {
        try await transfers.sendDirectory(at: url, to: peer, type: type)
    }

    /// Starts sending the directory at `url` to `peer` (as ``sendDirectory(at:to:type:)``) and hands back at once
    /// its ID, its progress and a way to cancel it; ``TransferSending/value`` waits for the report.
    public nonisolated func startSendingDirectory(at url: URL, to peer: PeerID, type: String = "") -> DirectorySending {
        transfers.startSendingDirectory(at: url, to: peer, type: type)
    }

    /// Sends `data` (an image, a document) to `peer` as a file called `name`: the same offer, chunked stream,
    /// progress and SHA-256 check as ``sendFile(at:to:type:)``, read from memory instead of disk.
    ///
    /// The receiver may keep it as a file or take it into memory with ``acceptTransferIntoMemory(_:)``.
    /// - Returns: when the receiver has verified the data.
    /// - Throws: ``PeerSessionError``: `.transferDeclined`, `.transferFailed`, `.notConnected`.
    @discardableResult
    public func sendData(
        _ data: Data,
        named name: String,
        to peer: PeerID,
        type: String = ""
    ) async throws -> TransferID {
        try await transfers.sendData(data, named: name, to: peer, type: type)
    }

    /// Accepts an offered file into memory rather than onto disk: when every byte has arrived and matches the
    /// SHA-256 the sender gives at the end, the data comes as ``PeerSessionEvent/transferReceivedData(_:_:_:)``.
    ///
    /// Only offers up to ``TransferConfiguration/maximumInMemorySize`` are taken, and only while all transfers
    /// into memory together stay within ``TransferConfiguration/maximumInMemoryBytes``: each reserves its offered
    /// size from accept to its end. The receiver never holds more than the offered size (chunks beyond it fail the
    /// transfer). Nothing is kept for a resume.
    /// - Throws: `.transferTooLarge` when the offer is over the limit, `.inMemoryBudgetExhausted` when it does
    ///   not fit in what is left of the budget (either way the offer stays open: accept it into a directory or
    ///   decline it), `.transferFailed` for a directory or an unknown offer.
    public func acceptTransferIntoMemory(_ transfer: IncomingTransfer) throws {
        try transfers.assumeIsolated { try $0.acceptTransferIntoMemory(transfer) }
    }
}
