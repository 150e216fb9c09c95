import Crypto
public import Foundation
import HuddleTransport
public import HuddleWire
import NIOCore
import Synchronization

extension PeerSession {
    /// Sends the file at `url` to `peer`: offered by name, size and SHA-256, streamed from disk in chunks with
    /// bounded memory, and verified by the receiver before it keeps it. When the receiver still has part of the
    /// same content from an interrupted transfer, only the rest is sent.
    ///
    /// Progress arrives as ``PeerSessionEvent/transferProgress(_:)``.
    /// - Returns: when the receiver has verified and kept the file.
    /// - Throws: ``PeerSessionError``: `.transferDeclined`, `.transferFailed`, `.notConnected`, file errors.
    @discardableResult
    public func sendFile(at url: URL, to peer: PeerID, type: String = "") async throws -> TransferID {
        guard flow.channel(for: peer) != nil else { throw PeerSessionError.notConnected(peer) }
        let name = url.lastPathComponent
        let (size, digest) = try await Task.detached { try FileHasher.digest(of: url) }.value
        let id = TransferID(bytes: (0..<16).map { _ in UInt8.random(in: 0...255) })
        outgoing[id] = OutgoingTransfer(peer: peer)
        defer {
            outgoing[id] = nil
            cancelledTransfers.withLock { _ = $0.remove(id) }
        }
        let offer = TransferOffer(id: id, name: name, size: size, sha256: digest, type: type)
        let offset = try await ask(.offer(offer), id: id, peer: peer)
        guard offset <= size else { throw PeerSessionError.transferFailed("the receiver asked to resume past the end") }
        try await streamFile(url, id: id, from: offset, size: size, to: peer)
        _ = try await ask(.end(id), id: id, peer: peer)
        return id
    }

    /// Accepts an offered file into `directory`: written to a hidden partial file there (kept if the transfer
    /// breaks, so the next offer of the same content resumes), checked against the offered SHA-256, then renamed
    /// to a name that does not exist yet (`name (2).ext`, …) — nothing is ever overwritten.
    public func acceptTransfer(_ transfer: IncomingTransfer, into directory: URL) throws {
        offerPeers[transfer.id] = nil
        guard let offer = pendingOffers.removeValue(forKey: transfer.id) else {
            throw PeerSessionError.transferFailed("no such offer")
        }
        let partial = directory.appendingPathComponent(".\(transfer.name).\(transfer.sha256.prefix(16)).huddle-partial")
        let manager = FileManager.default
        var have: UInt64 = 0
        if let size = (try? manager.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)?.uint64Value,
            size <= offer.size
        {
            have = size
        } else {
            try? manager.removeItem(at: partial)
            guard manager.createFile(atPath: partial.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw PeerSessionError.transferFailed("cannot write in \(directory.path)")
            }
        }
        var hasher = FileHasher()
        try hasher.update(prefixOf: partial, length: have)
        let handle = try FileHandle(forWritingTo: partial)
        try handle.truncate(atOffset: have)
        try handle.seek(toOffset: have)
        incoming[transfer.id] = IncomingFile(
            transfer: transfer,
            offer: offer,
            partial: partial,
            directory: directory,
            handle: handle,
            hasher: hasher,
            written: have
        )
        sendResourceNow(.accept(transfer.id, offset: have), to: transfer.peer)
    }

    /// Declines an offered file; the sender's `sendFile` throws `.transferDeclined`.
    public func declineTransfer(_ transfer: IncomingTransfer, reason: String = "declined") {
        offerPeers[transfer.id] = nil
        guard pendingOffers.removeValue(forKey: transfer.id) != nil else { return }
        sendResourceNow(.decline(transfer.id, reason: reason), to: transfer.peer)
    }

    /// Stops a transfer from either side: the other side is told (CANCEL), the sender's `sendFile` throws
    /// `.cancelled`, and the receiver keeps its partial file for a later resume.
    public func cancelTransfer(_ id: TransferID) {
        if let transfer = outgoing[id] {
            cancelledTransfers.withLock { _ = $0.insert(id) }
            sendResourceNow(.cancel(id, reason: "cancelled by the sender"), to: transfer.peer)
            transfer.waiter?.resume(throwing: PeerSessionError.cancelled)
            outgoing[id]?.waiter = nil
        }
        if let file = incoming.removeValue(forKey: id) {
            sendResourceNow(.cancel(id, reason: "cancelled by the receiver"), to: file.transfer.peer)
            closeKeepingPartial(file, reason: "cancelled")
        }
        if let offer = pendingOffers.removeValue(forKey: id), let peer = offerPeers.removeValue(forKey: id) {
            sendResourceNow(.decline(offer.id, reason: "cancelled"), to: peer)
        }
    }

    // MARK: - Sending side

    nonisolated func sendResource(_ message: TransferMessage, to peer: PeerID) async throws {
        guard let channel = flow.channel(for: peer) else { throw PeerSessionError.notConnected(peer) }
        var buffer = channel.allocator.buffer(capacity: 64)
        message.encode(into: &buffer)
        do {
            try await channel.writeAndFlush(PeerOutbound.resource(buffer))
        } catch let error as PeerConnectionError {
            throw PeerSessionError.connection(error)
        }
    }

    func sendResourceNow(_ message: TransferMessage, to peer: PeerID) {
        guard let channel = flow.channel(for: peer) else { return }
        var buffer = channel.allocator.buffer(capacity: 64)
        message.encode(into: &buffer)
        channel.writeAndFlush(PeerOutbound.resource(buffer), promise: nil)
    }

    /// Reads the file in chunks and sends them; each send waits while the connection's buffer is full.
    nonisolated func streamFile(
        _ url: URL,
        id: TransferID,
        from offset: UInt64,
        size: UInt64,
        to peer: PeerID
    )
        async throws
    {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        var position = offset
        var reported = offset
        let chunk = configuration.transfers.chunkSize
        while position < size {
            if cancelledTransfers.withLock({ $0.contains(id) }) { throw PeerSessionError.cancelled }
            guard let data = try handle.read(upToCount: Int(min(UInt64(chunk), size - position))), !data.isEmpty
            else { throw PeerSessionError.transferFailed("\(url.lastPathComponent) shrank while being sent") }
            try await sendResource(.chunk(id, offset: position, data: ByteBuffer(bytes: data)), to: peer)
            position += UInt64(data.count)
            if position - reported >= 1 << 20 || position == size {
                reported = position
                eventSink.yield(
                    .transferProgress(
                        TransferProgress(
                            id: id,
                            peer: peer,
                            direction: .sending,
                            completed: position,
                            total: size,
                            startedAt: offset
                        )
                    )
                )
            }
        }
    }

    // MARK: - Receiving side

    func receivedResource(_ buffer: ByteBuffer, from peer: PeerID) {
        guard let message = try? TransferMessage(decoding: buffer) else { return }
        switch message {
        case .offer(let offer):
            do {
                let name = try TransferName.validate(offer.name)
                let transfer = IncomingTransfer(
                    id: offer.id,
                    peer: peer,
                    name: name,
                    size: offer.size,
                    sha256: offer.sha256.map { String(format: "%02x", $0) }.joined(),
                    type: offer.type
                )
                pendingOffers[offer.id] = offer
                offerPeers[offer.id] = peer
                emit(.transferOffered(transfer))
            } catch {
                sendResourceNow(.decline(offer.id, reason: "refused name: \(error)"), to: peer)
                emit(.peerError(peer, .transferFailed("refused an offered file: \(error)")))
            }
        case .accept(let id, let offset):
            outgoing[id]?.waiter?.resume(returning: offset)
            outgoing[id]?.waiter = nil
        case .decline(let id, let reason):
            outgoing[id]?.waiter?.resume(throwing: PeerSessionError.transferDeclined(reason))
            outgoing[id]?.waiter = nil
        case .result(let id, let ok, let reason):
            if ok {
                outgoing[id]?.waiter?.resume(returning: 0)
            } else {
                outgoing[id]?.waiter?.resume(throwing: PeerSessionError.transferFailed(reason))
            }
            outgoing[id]?.waiter = nil
        case .cancel(let id, let reason):
            if outgoing[id] != nil { cancelledTransfers.withLock { _ = $0.insert(id) } }
            outgoing[id]?.waiter?.resume(throwing: PeerSessionError.transferFailed("cancelled: \(reason)"))
            outgoing[id]?.waiter = nil
            if let file = incoming.removeValue(forKey: id) { closeKeepingPartial(file, reason: reason) }
        case .chunk(let id, let offset, let data):
            receivedChunk(id, offset: offset, data: data)
        case .end(let id):
            finish(id)
        }
    }

    func receivedChunk(_ id: TransferID, offset: UInt64, data: ByteBuffer) {
        guard let file = incoming[id] else { return }
        let count = UInt64(data.readableBytes)
        guard offset == file.written, file.written + count <= file.offer.size else {
            fail(file, reason: "chunk at \(offset) of \(count) bytes does not fit (have \(file.written))")
            return
        }
        do {
            try data.withUnsafeReadableBytes { try file.handle.write(contentsOf: $0) }
        } catch {
            fail(file, reason: "cannot write: \(error)", keepPartial: true)
            return
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
        try? file.handle.synchronize()
        try? file.handle.close()
        guard file.written == file.offer.size else {
            fail(file, reason: "ended at \(file.written) of \(file.offer.size) bytes", keepPartial: true)
            return
        }
        guard file.hasher.digest() == file.offer.sha256 else {
            try? FileManager.default.removeItem(at: file.partial)
            fail(file, reason: "SHA-256 mismatch: the data does not match the offer")
            return
        }
        do {
            let final = try Self.keep(file.partial, as: file.transfer.name, in: file.directory)
            sendResourceNow(.result(id, ok: true, reason: ""), to: file.transfer.peer)
            emit(.transferFinished(id, file.transfer.peer, final))
        } catch {
            fail(file, reason: "cannot keep the file: \(error)", keepPartial: true)
        }
    }

    func fail(_ file: IncomingFile, reason: String, keepPartial: Bool = false) {
        incoming[file.transfer.id] = nil
        try? file.handle.close()
        if !keepPartial { try? FileManager.default.removeItem(at: file.partial) }
        sendResourceNow(.result(file.transfer.id, ok: false, reason: reason), to: file.transfer.peer)
        emit(.transferFailed(file.transfer.id, file.transfer.peer, .transferFailed(reason)))
    }

    func closeKeepingPartial(_ file: IncomingFile, reason: String) {
        try? file.handle.synchronize()
        try? file.handle.close()
        emit(.transferFailed(file.transfer.id, file.transfer.peer, .transferFailed(reason)))
    }

    /// The peer went away: partial files stay for a resume, senders' calls fail.
    func transfersEnded(with peer: PeerID) {
        for (id, file) in incoming where file.transfer.peer == peer {
            incoming[id] = nil
            closeKeepingPartial(file, reason: "the connection ended; the partial file is kept for a resume")
        }
        for (id, transfer) in outgoing where transfer.peer == peer {
            transfer.waiter?.resume(throwing: PeerSessionError.notConnected(peer))
            outgoing[id]?.waiter = nil
        }
    }

    /// Renames `partial` to `name` in `directory`, or `name (2)`, `name (3)`, … — never over an existing file.
    static func keep(_ partial: URL, as name: String, in directory: URL) throws -> URL {
        let base = (name as NSString).deletingPathExtension
        let ext = (name as NSString).pathExtension
        for index in 1...1000 {
            let candidate = index == 1 ? name : "\(base) (\(index))" + (ext.isEmpty ? "" : ".\(ext)")
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

/// A file being sent: who to, and the call waiting for the receiver's next answer.
struct OutgoingTransfer {
    let peer: PeerID
    var waiter: CheckedContinuation<UInt64, any Error>?
}
