import Crypto
import Foundation
import HuddleWire
import NIOCore

extension PeerSession {
    /// Checks a directory offer's whole manifest before anyone is asked: a bad name, path or size declines it.
    func receivedDirectoryOffer(_ offer: DirectoryOffer, from peer: PeerID) {
        guard admitsOffer(offer.id, from: peer) else { return }
        do {
            try offer.validate(limits: configuration.transfers.manifestLimits)
        } catch {
            sendResourceNow(.decline(offer.id, reason: "refused manifest: \(error)"), to: peer)
            emit(.peerError(peer, .transferFailed("refused an offered directory: \(error)")))
            return
        }
        var manifest = ByteBuffer()
        offer.encodeManifest(into: &manifest)
        let transfer = IncomingTransfer(
            id: offer.id,
            peer: peer,
            name: offer.name,
            size: offer.totalSize,
            contentKey: SHA256.hash(data: Array(manifest.readableBytesView)).hexString,
            type: offer.type,
            isDirectory: true,
            fileCount: offer.fileCount
        )
        transfers.offered(offer, from: peer)
        emit(.transferOffered(transfer))
    }

    /// Makes (or reopens) the staging directory, works out which files are still needed and asks for them.
    func acceptDirectory(_ transfer: IncomingTransfer, offer: DirectoryOffer, into directory: URL) throws {
        let staging: DirectoryStaging
        let plan: (needed: [TransferResumePoint], present: UInt64)
        do {
            // Staging is the sending device's: another peer's run of the same manifest is never taken for it.
            guard let sender = machine.verifiedDevice(of: transfer.peer) else {
                throw PeerSessionError.transferFailed("the sending device is not known")
            }
            staging = try DirectoryStaging(offer: offer, digest: transfer.contentKey, sender: sender, in: directory)
            plan = try staging.prepare()
        } catch {
            sendResourceNow(.decline(transfer.id, reason: "cannot receive: \(error)"), to: transfer.peer)
            throw error
        }
        let tree = IncomingDirectory(transfer: transfer, staging: staging, needed: plan.needed, present: plan.present)
        transfers.receiving(tree)
        sendResourceNow(.directoryAccept(transfer.id, needed: plan.needed), to: transfer.peer)
    }

    /// Hands bytes of one file to its part's sink; the file gets its name at its ENTRY-END.
    /// - Returns: whether `counted` bytes of receive budget went to the sink with the chunk.
    func receivedEntryChunk(
        _ tree: IncomingDirectory,
        index: UInt32,
        offset: UInt64,
        data: ByteBuffer,
        counted: Int
    ) -> Bool {
        let count = UInt64(data.readableBytes)
        guard var entry = openEntry(tree, index) else { return false }
        let entryInfo = tree.offer.entries[Int(index)]
        if case .refuse(let reason) = entry.bytes.chunk(at: offset, count: count) {
            failDirectory(tree, reason: "\(entryInfo.path): \(reason)", keepParts: true)
            return false
        }
        if let failure = entry.sink.failure {
            failDirectory(tree, reason: "\(entryInfo.path): \(failure)", keepParts: true)
            return false
        }
        // The sink takes the chunk's bytes off the budget once written; the message's header goes now.
        flow.consumedResource(counted - data.readableBytes)
        entry.sink.append(data)
        tree.completed += count
        tree.current = entry
        // A file's last chunk reports nothing: the file is reported once, complete, when it has been checked.
        if entry.written < entry.bytes.size,
            tree.completed - tree.reportedAt >= UInt64(configuration.transfers.progressInterval)
        {
            tree.reportedAt = tree.completed
            emit(.transferProgress(tree.progress(of: entry)))
        }
        return true
    }

    /// The sender has sent all of file `index`, with its SHA-256: once its sink has written everything, check the
    /// part and give it its name. (A part that was already whole from an earlier run gets no chunks, only this.)
    func receivedEntryEnd(_ tree: IncomingDirectory, index: UInt32, sha256 claimed: [UInt8]) {
        guard let entry = openEntry(tree, index) else { return }
        let info = tree.offer.entries[Int(index)]
        guard entry.written == info.size else {
            return failDirectory(
                tree,
                reason: "\(info.path) ended at \(entry.written) of \(info.size) bytes",
                keepParts: true
            )
        }
        tree.current = nil
        tree.closing += 1
        guard entry.written > entry.bytes.startedAt else {
            // Whole from an earlier run, nothing written now: checked at once, before what comes next.
            return entryClosed(tree, entry, sha256: entry.sink.closeUnwritten(), claimed: claimed, failure: nil)
        }
        Task {
            let (sha256, failure) = await entry.sink.close(sync: false)
            entryClosed(tree, entry, sha256: sha256, claimed: claimed, failure: failure)
        }
    }

    /// The open part of file `index`: the current one, or — when the sender moves on to it — that file's part,
    /// opened at the offset asked for. Nil when the transfer failed instead (a file left unfinished, or one not
    /// asked for).
    func openEntry(_ tree: IncomingDirectory, _ index: UInt32) -> IncomingDirectory.OpenEntry? {
        if let current = tree.current {
            if current.index == index { return current }
            let path = tree.offer.entries[Int(current.index)].path
            failDirectory(tree, reason: "\(path) ended at \(current.written) bytes", keepParts: true)
            return nil
        }
        guard let start = tree.remaining[index] else {
            failDirectory(tree, reason: "file \(index) was not asked for", keepParts: true)
            return nil
        }
        do {
            let (handle, hasher) = try tree.staging.openPart(Int(index), at: start)
            let sink = fileSink(handle: handle, hasher: hasher)
            let bytes = IncomingBytes(size: tree.offer.entries[Int(index)].size, present: start, progressInterval: 1)
            tree.current = IncomingDirectory.OpenEntry(index: index, sink: sink, bytes: bytes)
            return tree.current
        } catch {
            failDirectory(tree, reason: "\(error)", keepParts: true)
            return nil
        }
    }

    /// A file's sink has written all its bytes: check them against the sender's SHA-256 and give the file its
    /// name; the tree finishes here when END came meanwhile. When the transfer ended meanwhile (cancelled, the
    /// connection lost), a file that checks out still gets its name in the staging directory, for the next run.
    func entryClosed(
        _ tree: IncomingDirectory,
        _ entry: IncomingDirectory.OpenEntry,
        sha256: [UInt8],
        claimed: [UInt8],
        failure: String?
    ) {
        tree.closing -= 1
        let active = transfers.isActive(tree)
        // An ended transfer's event waits for this file (kept or not), and for any other still closing.
        defer { if !active { reportEndIfSettled(tree) } }
        let info = tree.offer.entries[Int(entry.index)]
        if let failure {
            if active { failDirectory(tree, reason: "\(info.path): \(failure)", keepParts: true) }
            return
        }
        guard sha256 == claimed else {
            tree.staging.discardPart(Int(entry.index))
            let reason = "SHA-256 mismatch: \(info.path) does not match what was sent"
            if active { failDirectory(tree, reason: reason, keepParts: true) }
            return
        }
        do {
            try tree.staging.keep(Int(entry.index))
        } catch {
            if active { failDirectory(tree, reason: "\(error)", keepParts: true) }
            return
        }
        tree.remaining[entry.index] = nil
        tree.filesCompleted += 1
        guard active else { return }
        tree.reportedAt = tree.completed
        emit(.transferProgress(tree.progress(of: entry)))
        if tree.endReceived, tree.closing == 0 { finishDirectory(tree) }
    }

    /// The sender is done: every file must be here and verified; then the tree moves into place.
    func finishDirectory(_ tree: IncomingDirectory) {
        if tree.current == nil, tree.closing > 0 {
            tree.endReceived = true
            return
        }
        guard tree.current == nil, tree.remaining.isEmpty else {
            let missing = tree.remaining.count
            return failDirectory(tree, reason: "ended with \(missing) file(s) incomplete", keepParts: true)
        }
        transfers.forget(tree.transfer.id)
        do {
            let final = try tree.staging.finish(keeping: transfers.stagingRoots)
            sendResourceNow(.result(tree.transfer.id, ok: true, reason: ""), to: tree.transfer.peer)
            emit(.transferFinished(tree.transfer.id, tree.transfer.peer, final))
        } catch {
            sendResourceNow(.result(tree.transfer.id, ok: false, reason: "\(error)"), to: tree.transfer.peer)
            emit(.transferFailed(tree.transfer.id, tree.transfer.peer, .transferFailed("\(error)")))
        }
    }

    /// Ends a directory transfer with the sender told why. The staging directory stays: every file in its tree
    /// was verified, and parts hold only bytes that were in order (a part whose check failed is removed).
    func failDirectory(_ tree: IncomingDirectory, reason: String, keepParts: Bool = false) {
        if !keepParts, let current = tree.current { tree.staging.discardPart(Int(current.index)) }
        sendResourceNow(.result(tree.transfer.id, ok: false, reason: reason), to: tree.transfer.peer)
        stopDirectory(tree, reason: reason)
    }

    /// Forgets a directory transfer, keeping its staging directory for a resume.
    func stopDirectory(_ tree: IncomingDirectory, reason: String) {
        if transfers.isActive(tree) { transfers.forget(tree.transfer.id) }
        closeCurrentEntry(of: tree)
        tree.endedEvent = .transferFailed(tree.transfer.id, tree.transfer.peer, .transferFailed(reason))
        reportEndIfSettled(tree)
    }

    /// Closes the open file, if any, once what was handed to it is written; its part stays for a resume.
    func closeCurrentEntry(of tree: IncomingDirectory) {
        guard let sink = tree.current?.sink else { return }
        tree.current = nil
        tree.closing += 1
        Task {
            _ = await sink.close(sync: false)
            tree.closing -= 1
            reportEndIfSettled(tree)
        }
    }

    /// Sends the ended transfer's event once none of its files is still closing.
    func reportEndIfSettled(_ tree: IncomingDirectory) {
        guard tree.closing == 0, let event = tree.endedEvent else { return }
        tree.endedEvent = nil
        emit(event)
    }
}
