import Foundation
import HuddleWire
import NIOCore
import Synchronization

extension PeerSession {
    /// Handles one message of the resource stream; messages that do not decode are dropped.
    func receivedResource(_ buffer: ByteBuffer, from peer: PeerID) {
        guard let message = try? TransferMessage(decoding: buffer) else { return }
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
            if outgoing[id] != nil { cancelledTransfers.withLock { _ = $0.insert(id) } }
            answer(id, with: .failure(.transferFailed("cancelled: \(reason)")))
            if let file = incoming.removeValue(forKey: id) { closeKeepingPartial(file, reason: reason) }
            if let tree = incomingDirectories[id] { stopDirectory(tree, reason: reason) }
        case .chunk(let id, let offset, let data):
            receivedChunk(id, offset: offset, data: data)
        case .entryChunk(let id, let index, let offset, let data):
            if let tree = incomingDirectories[id] { receivedEntryChunk(tree, index: index, offset: offset, data: data) }
        case .end(let id):
            if let tree = incomingDirectories[id] { finishDirectory(tree) } else { finish(id) }
        }
    }

    func receivedOffer(_ offer: TransferOffer, from peer: PeerID) {
        do {
            let name = try TransferName.validate(offer.name)
            let transfer = IncomingTransfer(
                id: offer.id,
                peer: peer,
                name: name,
                size: offer.size,
                sha256: offer.sha256.hexString,
                type: offer.type,
                isDirectory: false,
                fileCount: 1
            )
            pendingOffers[offer.id] = offer
            offerPeers[offer.id] = peer
            emit(.transferOffered(transfer))
        } catch {
            sendResourceNow(.decline(offer.id, reason: "refused name: \(error)"), to: peer)
            emit(.peerError(peer, .transferFailed("refused an offered file: \(error)")))
        }
    }

    func receivedChunk(_ id: TransferID, offset: UInt64, data: ByteBuffer) {
        guard let file = incoming[id] else { return }
        let count = UInt64(data.readableBytes)
        guard offset == file.written, file.written + count <= file.offer.size else {
            fail(file, reason: "chunk at \(offset) of \(count) bytes does not fit (have \(file.written))")
            return
        }
        switch file.sink {
        case .file(let handle, _, _):
            do {
                try data.withUnsafeReadableBytes { try handle.write(contentsOf: $0) }
            } catch {
                fail(file, reason: "cannot write: \(error)", keepPartial: true)
                return
            }
        case .memory:
            file.memory.append(contentsOf: data.readableBytesView)
        }
        data.withUnsafeReadableBytes { file.hasher.update($0) }
        file.written += count
        if file.written - file.reportedAt >= 1 << 20 || file.written == file.offer.size {
            file.reportedAt = file.written
            emit(
                .transferProgress(
                    TransferProgress(
                        id: id,
                        peer: file.transfer.peer,
                        direction: .receiving,
                        completed: file.written,
                        total: file.offer.size,
                        startedAt: file.startedAt
                    )
                )
            )
        }
    }

    func finish(_ id: TransferID) {
        guard let file = incoming.removeValue(forKey: id) else { return }
        file.close(sync: true)
        guard file.written == file.offer.size else {
            fail(file, reason: "ended at \(file.written) of \(file.offer.size) bytes", keepPartial: true)
            return
        }
        guard file.hasher.digest() == file.offer.sha256 else {
            if let partial = file.partial { try? FileManager.default.removeItem(at: partial) }
            fail(file, reason: "SHA-256 mismatch: the data does not match the offer")
            return
        }
        switch file.sink {
        case .memory:
            sendResourceNow(.result(id, ok: true, reason: ""), to: file.transfer.peer)
            emit(.transferReceivedData(id, file.transfer.peer, file.memory))
        case .file(_, let partial, let directory):
            do {
                let final = try Self.keep(partial, as: file.transfer.name, in: directory)
                sendResourceNow(.result(id, ok: true, reason: ""), to: file.transfer.peer)
                emit(.transferFinished(id, file.transfer.peer, final))
            } catch {
                fail(file, reason: "cannot keep the file: \(error)", keepPartial: true)
            }
        }
    }

    func fail(_ file: IncomingFile, reason: String, keepPartial: Bool = false) {
        incoming[file.transfer.id] = nil
        file.close(sync: false)
        if !keepPartial, let partial = file.partial { try? FileManager.default.removeItem(at: partial) }
        sendResourceNow(.result(file.transfer.id, ok: false, reason: reason), to: file.transfer.peer)
        emit(.transferFailed(file.transfer.id, file.transfer.peer, .transferFailed(reason)))
    }

    func closeKeepingPartial(_ file: IncomingFile, reason: String) {
        file.close(sync: true)
        emit(.transferFailed(file.transfer.id, file.transfer.peer, .transferFailed(reason)))
    }

    /// The peer went away: partial files and staging directories stay for a resume, senders' calls fail.
    func transfersEnded(with peer: PeerID) {
        for (id, file) in incoming where file.transfer.peer == peer {
            incoming[id] = nil
            closeKeepingPartial(file, reason: "the connection ended; the partial file is kept for a resume")
        }
        for tree in incomingDirectories.values where tree.transfer.peer == peer {
            stopDirectory(tree, reason: "the connection ended; the files so far are kept for a resume")
        }
        for (id, transfer) in outgoing where transfer.peer == peer {
            answer(id, with: .failure(.notConnected(peer)))
        }
    }

    /// Renames `partial` to `name` in `directory`, or `name (2)`, `name (3)`, … — never over an existing file.
    static func keep(_ partial: URL, as name: String, in directory: URL) throws -> URL {
        for candidate in FreeNames(name) {
            let target = directory.appendingPathComponent(candidate)
            // link() fails if the target exists, so a file appearing meanwhile is never replaced.
            if link(partial.path, target.path) == 0 {
                unlink(partial.path)
                return target
            }
            guard errno == EEXIST else { throw PeerSessionError.transferFailed(String(cString: strerror(errno))) }
        }
        throw PeerSessionError.transferFailed("no free name for \(name)")
    }
}

/// `name`, then `name (2)`, `name (3)`, … up to 1000, the number before a file's extension (`photo (2).png`) and
/// after a directory's whole name (`photos.2024 (2)`).
struct FreeNames: Sequence, IteratorProtocol {
    let name: String
    let base: String
    let ext: String
    var index = 0

    init(_ name: String, splittingExtension: Bool = true) {
        self.name = name
        base = splittingExtension ? (name as NSString).deletingPathExtension : name
        ext = splittingExtension ? (name as NSString).pathExtension : ""
    }

    mutating func next() -> String? {
        index += 1
        guard index <= 1000 else { return nil }
        return index == 1 ? name : "\(base) (\(index))" + (ext.isEmpty ? "" : ".\(ext)")
    }
}

extension Sequence<UInt8> {
    /// Lower-case hex.
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
