public import Foundation
import HuddleTransport
import HuddleWire
import NIOConcurrencyHelpers
import NIOCore

extension PeerSession {
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
        try await sendDirectory(at: url, to: peer, type: type, id: .random())
    }

    /// Starts sending the directory at `url` to `peer` (as ``sendDirectory(at:to:type:)``) and hands back at once
    /// its ID, its progress and a way to cancel it; ``TransferSending/value`` waits for the report.
    public nonisolated func startSendingDirectory(at url: URL, to peer: PeerID, type: String = "") -> DirectorySending {
        startSending { id in try await self.sendDirectory(at: url, to: peer, type: type, id: id) }
    }

    func sendDirectory(
        at url: URL,
        to peer: PeerID,
        type: String,
        id: TransferID
    ) async throws
        -> DirectoryTransferReport
    {
        guard flow.channel(for: peer) != nil else { throw PeerSessionError.notConnected(peer) }
        let scan = try await Task.detached { try DirectoryScan(of: url) }.value
        let name = url.standardizedFileURL.resolvingSymlinksInPath().lastPathComponent
        let offer = DirectoryOffer(id: id, name: name, type: type, entries: scan.entries)
        do {
            try offer.validate(limits: configuration.transfers.manifestLimits)
        } catch {
            throw PeerSessionError.transferFailed("cannot offer \(url.path): \(error)")
        }
        guard transfers.startSending(id, to: peer) else { throw PeerSessionError.transferFailed("transfer ID in use") }
        defer { forgetOutgoing(id) }
        // Cancelling the calling task cancels the transfer (the receiver is told, partial files stay).
        return try await withTaskCancellationHandler {
            let answer = try await ask(
                .directoryOffer(offer),
                id: id,
                peer: peer,
                decisionWithin: transferDecisionTimeout
            )
            guard case .needed(let needed) = answer else {
                throw PeerSessionError.transferFailed("the receiver answered a directory offer as a file")
            }
            let sent: UInt64
            do {
                sent = try await streamDirectory(offer, scan: scan, needed: needed, to: peer)
            } catch PeerSessionError.cancelled {
                throw earlyFailure(id) ?? .cancelled
            } catch let error as PeerSessionError {
                // A file changed or could not be read: the receiver stops too, keeping the files it has verified.
                if error.code == .transferFailed, let reason = error.reason {
                    sendResourceNow(.cancel(id, reason: reason), to: peer)
                }
                throw error
            }
            _ = try await ask(.end(id, sha256: nil), id: id, peer: peer)
            return DirectoryTransferReport(
                id: id,
                fileCount: offer.fileCount,
                filesSent: needed.filter { $0.offset < offer.entries[Int($0.index)].size }.count,
                totalSize: offer.totalSize,
                bytesSent: sent,
                skipped: scan.skipped
            )
        } onCancel: { [weak self] in
            Task { await self?.cancelTransfer(id) }
        }
    }

    /// Sends the files the receiver asked for, in the order it asked, each from its offset.
    /// - Returns: the bytes of file data sent.
    nonisolated func streamDirectory(
        _ offer: DirectoryOffer,
        scan: DirectoryScan,
        needed: [TransferResumePoint],
        to peer: PeerID
    ) async throws -> UInt64 {
        var asked = Set<UInt32>()
        for point in needed {
            let index = Int(point.index)
            guard index < offer.entries.count, offer.entries[index].isFile, point.offset <= offer.entries[index].size,
                asked.insert(point.index).inserted
            else { throw PeerSessionError.transferFailed("the receiver asked for file \(index) at \(point.offset)") }
        }
        let missing = needed.reduce(UInt64(0)) { $0 + offer.entries[Int($1.index)].size - $1.offset }
        var progress = DirectoryProgress(
            id: offer.id,
            peer: peer,
            total: offer.totalSize,
            completed: offer.totalSize - missing,
            filesCompleted: offer.fileCount - needed.count,
            fileCount: offer.fileCount,
            interval: UInt64(configuration.transfers.progressInterval)
        )
        var sent: UInt64 = 0
        var pipeline = ResourcePipeline(window: configuration.transfers.sendWindow)
        let chunk = UInt64(configuration.transfers.chunkSize)
        for point in needed {
            let entry = offer.entries[Int(point.index)]
            let index = Int(point.index)
            guard let url = scan.files[index], let stamp = scan.stamps[index], let identity = scan.identities[index]
            else { continue }
            // The file the scan saw, never a link or another file put at its path since.
            let handle = try TransferSource.openFile(url, followingLinks: false, identity: identity, path: entry.path)
            var reader = TransferSource.Reader.file(handle)
            defer { reader.close() }
            guard try reader.stamp() == stamp else {
                throw PeerSessionError.transferFailed("\(entry.path) changed while being sent")
            }
            // The SHA-256 covers the whole file: the part the receiver has is read and hashed first (all of it
            // for a file the receiver has whole, which is sent no bytes, only this).
            var hasher = FileHasher()
            try reader.hashPrefix(length: point.offset, into: &hasher)
            try reader.seek(to: point.offset)
            var position = point.offset
            if position == entry.size, let event = progress.advance(by: 0, in: entry, at: position) {
                reportSending(event)
            }
            while position < entry.size {
                if cancelledTransfers.withLockedValue({ $0.contains(offer.id) }) { throw PeerSessionError.cancelled }
                // The header, then the file read straight in after it (as for a single file).
                let want = Int(min(chunk, entry.size - position))
                var message = ByteBuffer()
                message.reserveCapacity(TransferMessage.entryChunkHeaderSize + want)
                TransferMessage.writeEntryChunkHeader(offer.id, index: point.index, offset: position, into: &message)
                let count = try reader.read(upTo: want, appendingTo: &message)
                guard count > 0 else { throw PeerSessionError.transferFailed("\(entry.path) shrank while being sent") }
                message.withUnsafeReadableBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0.suffix(count))) }
                try await pipeline.send(encoded: message, to: peer, on: self)
                position += UInt64(count)
                sent += UInt64(count)
                if let event = progress.advance(by: UInt64(count), in: entry, at: position) {
                    reportSending(event)
                }
            }
            guard try reader.stamp() == stamp, try FileStamp.of(url) == stamp else {
                throw PeerSessionError.transferFailed("\(entry.path) changed while being sent")
            }
            try await pipeline.send(
                .entryEnd(offer.id, index: point.index, sha256: hasher.digest()),
                to: peer,
                on: self
            )
        }
        try await pipeline.drain()
        return sent
    }
}
