import Crypto
import Foundation
import HuddleWire
import NIOCore

extension SessionTransfers {
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
        table.offered(offer, from: peer)
        emit(.transferOffered(transfer))
    }

    /// Makes (or reopens) the staging directory, works out which files are still needed and asks for them.
    func acceptDirectory(
        _ transfer: IncomingTransfer,
        offer: DirectoryOffer,
        into directory: URL,
        sender: DeviceID?
    ) throws {
        let staging: DirectoryStaging
        let plan: (needed: [TransferResumePoint], present: UInt64)
        do {
            // Staging is the sending device's: another peer's run of the same manifest is never taken for it.
            guard let sender else {
                throw PeerSessionError.transferFailed("the sending device is not known")
            }
            staging = try sessionFileOperation {
                try DirectoryStaging(offer: offer, digest: transfer.contentKey, sender: sender, in: directory)
            }
            // A run of the same directory that ended a moment ago may still be writing a part: reading the parts
            // now could take a length a write then changes.
            guard !table.isSettling(staging.root) else {
                throw PeerSessionError.transferFailed(
                    "the last run of this directory is still writing its files; accept its next offer"
                )
            }
            plan = try sessionFileOperation { try staging.prepare() }
        } catch {
            sendResourceNow(.decline(transfer.id, reason: "cannot receive: \(error)"), to: transfer.peer)
            throw error
        }
        let tree = IncomingDirectory(
            transfer: transfer,
            staging: staging,
            needed: plan.needed,
            present: plan.present,
            progressInterval: configuration.transfers.progressInterval
        )
        table.receiving(tree)
        sendResourceNow(.directoryAccept(transfer.id, needed: plan.needed), to: transfer.peer)
    }

    /// Hands bytes of one file to its part's sink; the file gets its name at its ENTRY-END.
    /// A chunk handed to the sink keeps its `charge` until written.
    func receivedEntryChunk(
        _ tree: IncomingDirectory,
        index: UInt32,
        offset: UInt64,
        data: ByteBuffer,
        charge: ReceiveCharge
    ) {
        let actions = tree.rules.chunk(index, offset: offset, count: UInt64(data.readableBytes))
        let endedByRules = tree.rules.isEnded
        for action in actions {
            guard case .write = action else {
                perform(action, on: tree)
                // Opening the part failed, and with it the transfer: what the rules asked for next is void.
                if !endedByRules, tree.rules.isEnded { break }
                continue
            }
            guard let sink = tree.sink else { continue }
            if let failure = sink.failure {
                perform(tree.rules.fail("\(tree.staging.offer.entries[Int(index)].path): \(failure)"), on: tree)
                break
            }
            sink.append(data, holding: charge)
        }
    }

    /// The sender has sent all of file `index`, with its SHA-256: once its sink has written everything, the part
    /// is checked and given its name.
    func receivedEntryEnd(_ tree: IncomingDirectory, index: UInt32, sha256 claimed: [UInt8]) {
        perform(tree.rules.entryEnd(index, sha256: claimed), on: tree)
    }

    /// The sender is done: every file must be here and verified; then the tree moves into place.
    func finishDirectory(_ tree: IncomingDirectory) {
        perform(tree.rules.end(), on: tree)
    }

    /// Ends a directory transfer without a RESULT (cancelled, the connection lost), keeping its staging directory
    /// for a resume.
    func stopDirectory(_ tree: IncomingDirectory, reason: String) {
        perform(tree.rules.stop(reason: reason), on: tree)
    }

    /// Carries out `actions` in order; once one of them fails the transfer (opening a part, keeping a file), the
    /// rest are void.
    func perform(_ actions: [IncomingDirectoryRules.Action], on tree: IncomingDirectory) {
        let endedByRules = tree.rules.isEnded
        for action in actions {
            perform(action, on: tree)
            if !endedByRules, tree.rules.isEnded { break }
        }
    }

    /// Carries out one action of a directory's rules (``IncomingDirectoryRules/Action``).
    func perform(_ action: IncomingDirectoryRules.Action, on tree: IncomingDirectory) {
        let id = tree.transfer.id
        switch action {
        case .open(let index, let start):
            do {
                let (handle, hasher) = try tree.staging.openPart(Int(index), at: start)
                tree.sink = fileSink(handle: handle, hasher: hasher)
            } catch {
                perform(tree.rules.fail("\(error)"), on: tree)
            }
        case .write:
            break  // only with the chunk's bytes, in receivedEntryChunk
        case .closeAndCheck(let index, let wroteNothing):
            guard let sink = tree.sink else {
                // Its part could not be opened (the transfer failed already): nothing to check.
                return perform(tree.rules.checked(index, sha256: [], failure: "the part is not open"), on: tree)
            }
            tree.sink = nil
            // Whole from an earlier run, nothing written now: checked at once, before what comes next.
            if wroteNothing {
                return perform(tree.rules.checked(index, sha256: sink.closeUnwritten(), failure: nil), on: tree)
            }
            Task {
                let (sha256, failure) = await sink.close(sync: false)
                perform(tree.rules.checked(index, sha256: sha256, failure: failure), on: tree)
            }
        case .closeForResume:
            guard let sink = tree.sink else { return perform(tree.rules.closedForResume(), on: tree) }
            tree.sink = nil
            Task {
                _ = await sink.close(sync: false)
                perform(tree.rules.closedForResume(), on: tree)
            }
        case .keep(let index):
            do {
                try tree.staging.keep(Int(index))
                perform(tree.rules.kept(index), on: tree)
            } catch {
                perform(tree.rules.keepFailed(index, reason: "\(error)"), on: tree)
            }
        case .discardPart(let index):
            tree.staging.discardPart(Int(index))
        case .progress(let progress):
            emit(.transferProgress(progress))
        case .sendFailure(let reason):
            sendResourceNow(.result(id, ok: false, reason: reason), to: tree.transfer.peer)
        case .forget:
            if table.isActive(tree) { table.forget(id) }
            if tree.rules.closing > 0 {
                tree.isSettling = true
                table.settling(tree.staging.root)
            }
        case .finish:
            do {
                let final = try tree.staging.finish(keeping: table.stagingRoots)
                sendResourceNow(.result(id, ok: true, reason: ""), to: tree.transfer.peer)
                emit(.transferFinished(id, tree.transfer.peer, final))
            } catch {
                sendResourceNow(.result(id, ok: false, reason: "\(error)"), to: tree.transfer.peer)
                emit(.transferFailed(id, tree.transfer.peer, .transferFailed("\(error)")))
            }
        case .reportEnded(let reason):
            if tree.isSettling { table.settled(tree.staging.root) }
            emit(.transferFailed(id, tree.transfer.peer, .transferFailed(reason)))
        }
    }
}
