import Foundation
import HuddleWire
import Logging
import NIOConcurrencyHelpers
import NIOCore

extension SessionTransfers {
    /// Handles one message of the resource stream; messages that do not decode are dropped. Its bytes stay
    /// charged to the receive budget until a file's writer has written them, or else until this returns.
    func receivedResource(_ buffer: ByteBuffer, from peer: PeerID, charge: ReceiveCharge) {
        let message: TransferMessage
        do {
            message = try TransferMessage(decoding: buffer)
        } catch {
            configuration.logger.warning(
                "dropped a transfer message that does not decode",
                metadata: ["peer": "\(peer)", "bytes": "\(buffer.readableBytes)", "error": "\(error)"]
            )
            return
        }
        // A transfer's messages count only from the peer it is with: IDs are random, but a peer that learned
        // another's ID must not be able to answer, feed or cancel that transfer.
        if let id = message.transferID {
            guard let owner = table.peer(of: id) else {
                // Late (the transfer ended or was cancelled) or made up.
                configuration.logger.notice(
                    "dropped a transfer message about no transfer this side has",
                    metadata: ["peer": "\(peer)", "transfer": "\(id)"]
                )
                return
            }
            guard owner == peer else {
                configuration.logger.warning(
                    "dropped a transfer message about another peer's transfer",
                    metadata: ["peer": "\(peer)", "transfer": "\(id)"]
                )
                return
            }
        }
        switch message {
        case .offer(let offer):
            receivedOffer(offer, from: peer)
        case .directoryOffer(let offer):
            receivedDirectoryOffer(offer, from: peer)
        case .accept(let id, let offset):
            answer(id, with: .success(.offset(offset)))
        case .directoryAccept(let id, let needed):
            answer(id, with: .success(.needed(needed)))
        case .decline(let id, let reason):
            answer(id, with: .failure(.transferDeclined(reason)))
        case .result(let id, let ok, let reason):
            answer(id, with: ok ? .success(.verified) : .failure(.transferFailed(reason)))
        case .cancel(let id, let reason):
            receivedCancel(id, reason: reason, from: peer)
        case .chunk(let id, let offset, let data):
            receivedChunk(id, offset: offset, data: data, charge: charge)
        case .entryChunk(let id, let index, let offset, let data):
            guard let tree = table.directory(id) else { return }
            receivedEntryChunk(tree, index: index, offset: offset, data: data, charge: charge)
        case .entryEnd(let id, let index, let sha256):
            if let tree = table.directory(id) { receivedEntryEnd(tree, index: index, sha256: sha256) }
        case .end(let id, let sha256):
            if let tree = table.directory(id) { finishDirectory(tree) } else { finish(id, sha256: sha256) }
        }
    }

    /// The other side stopped transfer `id`: a sender's call fails, a file or directory being received keeps what
    /// it has for a resume, and an offer withdrawn before it was answered (the sender's deadline passed) is void.
    func receivedCancel(_ id: TransferID, reason: String, from peer: PeerID) {
        switch table[id] {
        case .sending?:
            cancelledTransfers.withLockedValue { _ = $0.insert(id) }
            answer(id, with: .failure(.transferFailed("cancelled: \(reason)")))
        case .receivingFile(let file)?:
            table.forget(id)
            closeKeepingPartial(file, reason: reason)
        case .receivingDirectory(let tree)?:
            stopDirectory(tree, reason: reason)
        case .offeredFile?, .offeredDirectory?:
            table.forget(id)
            emit(.transferFailed(id, peer, .transferFailed("the offer was withdrawn: \(reason)")))
        case nil:
            break
        }
    }

    func receivedOffer(_ offer: TransferOffer, from peer: PeerID) {
        guard admitsOffer(offer.id, from: peer) else { return }
        do {
            let name = try TransferName.validate(offer.name)
            let transfer = IncomingTransfer(
                id: offer.id,
                peer: peer,
                name: name,
                size: offer.size,
                contentKey: offer.resumeKey.hexString,
                type: offer.type,
                isDirectory: false,
                fileCount: 1
            )
            table.offered(offer, from: peer)
            emit(.transferOffered(transfer))
        } catch {
            sendResourceNow(.decline(offer.id, reason: "refused name: \(error)"), to: peer)
            emit(.peerError(peer, .transferFailed("refused an offered file: \(error)")))
        }
    }

    /// Takes one chunk of a file: into memory, or gathered for the file's writer.
    /// A chunk handed to the writer keeps its `charge` until written.
    func receivedChunk(_ id: TransferID, offset: UInt64, data: ByteBuffer, charge: ReceiveCharge) {
        guard let file = table.file(id) else { return }
        let chunk = file.bytes.chunk(at: offset, count: UInt64(data.readableBytes))
        guard case .take(let reportProgress) = chunk else {
            if case .refuse(let reason) = chunk { fail(file, reason: reason) }
            return
        }
        switch file.sink {
        case .file(let sink, _, _):
            if let failure = sink.failure {
                fail(file, reason: failure, keepPartial: true)
                return
            }
            sink.append(data, holding: charge)
        case .memory:
            file.memory.append(contentsOf: data.readableBytesView)
            data.withUnsafeReadableBytes { file.hasher.update($0) }
        }
        if reportProgress {
            let progress = TransferProgress(
                id: id,
                peer: file.transfer.peer,
                direction: .receiving,
                completed: file.bytes.written,
                total: file.bytes.size,
                startedAt: file.bytes.startedAt
            )
            emit(.transferProgress(progress))
        }
    }

    /// The sender is done and says the file's SHA-256: once the writer has written (and hashed) everything, check
    /// and keep the file.
    func finish(_ id: TransferID, sha256 claimed: [UInt8]?) {
        guard let file = table.file(id) else { return }
        table.forget(id)
        guard case .file(let sink, _, _) = file.sink else {
            return verify(file, sha256: file.hasher.digest(), claimed: claimed, failure: nil)
        }
        Task {
            let (sha256, failure) = await sink.close(sync: true)
            verify(file, sha256: sha256, claimed: claimed, failure: failure)
        }
    }

    /// Checks a finished file's size and SHA-256 against the sender's (``IncomingBytes/verdict(sha256:claimed:writeFailure:)``),
    /// then keeps it under a free name (or hands over its bytes). A mismatch discards the partial file: a resume
    /// would only build on the same bad bytes.
    func verify(_ file: IncomingFile, sha256: [UInt8], claimed: [UInt8]?, failure: String?) {
        let id = file.transfer.id
        switch file.bytes.verdict(sha256: sha256, claimed: claimed, writeFailure: failure) {
        case .failKeepingPartial(let reason):
            return fail(file, reason: reason, keepPartial: true)
        case .failDiscarding(let reason):
            if let partial = file.partial { unlink(partial.path) }
            return fail(file, reason: reason)
        case .keep:
            break
        }
        switch file.sink {
        case .memory:
            sendResourceNow(.result(id, ok: true, reason: ""), to: file.transfer.peer)
            emit(.transferReceivedData(id, file.transfer.peer, file.memory))
        case .file(_, let partial, let directory):
            do {
                let final = try sessionFileOperation {
                    try PartialFile.keep(partial, as: file.transfer.name, in: directory, identity: file.partialIdentity)
                }
                sendResourceNow(.result(id, ok: true, reason: ""), to: file.transfer.peer)
                emit(.transferFinished(id, file.transfer.peer, final))
            } catch {
                fail(file, reason: "cannot keep the file: \(error)", keepPartial: true)
            }
        }
    }

    func fail(_ file: IncomingFile, reason: String, keepPartial: Bool = false) {
        if table.file(file.transfer.id) === file { table.forget(file.transfer.id) }
        // Removed at once: a write still under way goes to the unlinked file, never to a partial file made anew.
        // unlink, not a recursive remove: whatever someone may have put at the name since is not gone through.
        if !keepPartial, let partial = file.partial { unlink(partial.path) }
        sendResourceNow(.result(file.transfer.id, ok: false, reason: reason), to: file.transfer.peer)
        closing(
            file,
            sync: false,
            thenEmit: .transferFailed(file.transfer.id, file.transfer.peer, .transferFailed(reason))
        )
    }

    func closeKeepingPartial(_ file: IncomingFile, reason: String) {
        closing(
            file,
            sync: true,
            thenEmit: .transferFailed(file.transfer.id, file.transfer.peer, .transferFailed(reason))
        )
    }

    /// Hands the file's last chunks to its sink and closes it; `event` goes out once the file holds every byte
    /// received, so whoever hears of a kept partial file finds it whole on disk.
    func closing(_ file: IncomingFile, sync: Bool, thenEmit event: PeerSessionEvent) {
        guard case .file(let sink, _, _) = file.sink else { return emit(event) }
        Task {
            _ = await sink.close(sync: sync)
            emit(event)
        }
    }

    /// Whether an offer of `id` from `peer` is looked at: not when `id` is that of a transfer offered or under way
    /// (the offer would take over its state), nor past the peer's ``TransferConfiguration/maximumIncomingTransfersPerPeer``.
    /// A refused offer is reported as a ``PeerSessionEvent/peerError(_:_:)``; one past the limit is declined,
    /// while one reusing an ID gets no answer: any answer names the ID, and so the transfer already under way.
    func admitsOffer(_ id: TransferID, from peer: PeerID) -> Bool {
        switch table.admit(offer: id, from: peer) {
        case .admitted:
            return true
        case .reusesID:
            emit(.peerError(peer, .transferFailed("refused an offer that reuses the ID of a transfer in progress")))
        case .overLimit(let limit):
            sendResourceNow(.decline(id, reason: "too many transfers at once: the limit is \(limit)"), to: peer)
            emit(.peerError(peer, .tooManyTransfers(limit: limit)))
        }
        return false
    }

    /// The peer went away: partial files and staging directories stay for a resume, a waiting sender is told
    /// `error` (by default that the peer is not connected), and its offers not yet answered are dropped (their
    /// sender's call failed; accepting one now throws).
    func transfersEnded(with peer: PeerID, error: PeerSessionError? = nil) {
        let ended = table.connectionEnded(with: peer)
        for file in ended.files {
            closeKeepingPartial(file, reason: "the connection ended; the partial file is kept for a resume")
        }
        for tree in ended.directories {
            stopDirectory(tree, reason: "the connection ended; the files so far are kept for a resume")
        }
        for id in ended.sending { answer(id, with: .failure(error ?? .notConnected(peer))) }
    }
}
