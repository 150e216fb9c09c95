import Foundation
import HuddleWire
import NIOConcurrencyHelpers
import NIOCore

/// Streams what is being sent — a file, data, or the files of a directory the receiver asked for — to a peer as
/// transfer messages, off the session's actor: read in chunks, hashed as they go, written through a
/// ``ResourcePipeline``, progress reported every ``TransferConfiguration/progressInterval`` bytes, stopped at the
/// next chunk once the transfer is in ``cancelled``. See `docs/design.md`, "Transfers".
struct TransferStreamer: Sendable {
    /// Where each peer's connection is.
    let flow: ReceiveFlow
    let configuration: TransferConfiguration
    /// Outgoing transfers to stop at their next chunk.
    let cancelled: NIOLockedValueBox<Set<TransferID>>
    /// The clock the send limits are reckoned and waited on.
    let clock: any SessionClock
    /// Hands a sender's progress to whoever listens.
    let report: @Sendable (TransferProgress) -> Void

    /// Reads the file (or data) in chunks and sends them through a ``ResourcePipeline``: no hand-over to the event
    /// loop and back per chunk, and a wait whenever the connection's buffer is full. Each chunk is added to the
    /// SHA-256 before it goes (on this task's thread, beside the event loop's encryption); a resume first hashes
    /// the part the receiver has.
    /// - Returns: the SHA-256 of the whole file.
    func streamSingle(
        _ source: TransferSource,
        _ send: SingleSend,
        id: TransferID,
        from offset: UInt64,
        to peer: PeerID
    ) async throws -> [UInt8] {
        // The file its key was made from (a file replaced since is refused), hashed from the open descriptor.
        var reader = try source.open(at: offset, identity: send.identity)
        defer { reader.close() }
        var hasher = FileHasher()
        try reader.hashPrefix(length: offset, into: &hasher)
        var position = offset
        var reported = offset
        let (size, chunk) = (send.size, configuration.chunkSize)
        var pipeline = ResourcePipeline(window: configuration.sendWindow)
        while position < size {
            if cancelled.withLockedValue({ $0.contains(id) }) { throw PeerSessionError.cancelled }
            // The message's header, then the file read straight in after it: no copy between file and message.
            let want = Int(min(UInt64(chunk), size - position))
            var message = ByteBuffer()
            message.reserveCapacity(TransferMessage.chunkHeaderSize + want)
            TransferMessage.writeChunkHeader(id, offset: position, into: &message)
            let count = try reader.read(upTo: want, appendingTo: &message)
            guard count > 0 else { throw PeerSessionError.transferFailed("\(send.name) shrank while being sent") }
            message.withUnsafeReadableBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0.suffix(count))) }
            try await pace(message.readableBytes, of: id, to: peer)
            try await pipeline.send(encoded: message, to: peer, through: flow)
            position += UInt64(count)
            if position - reported >= UInt64(configuration.progressInterval) || position == size {
                reported = position
                let progress = TransferProgress(
                    id: id,
                    peer: peer,
                    direction: .sending,
                    completed: position,
                    total: size,
                    startedAt: offset
                )
                report(progress)
            }
        }
        try await pipeline.drain()
        if let stamp = send.stamp, case .file(let url) = source,
            try reader.stamp() != stamp || FileStamp.of(url) != stamp
        {
            throw PeerSessionError.transferFailed("\(send.name) changed while being sent")
        }
        return hasher.digest()
    }

    /// Sends the files the receiver asked for, in the order it asked, each from its offset.
    /// - Returns: the bytes of file data sent.
    func streamDirectory(
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
        var progress = DirectoryProgress(
            offer: offer,
            needed: needed,
            peer: peer,
            interval: UInt64(configuration.progressInterval)
        )
        var sent: UInt64 = 0
        var pipeline = ResourcePipeline(window: configuration.sendWindow)
        let chunk = UInt64(configuration.chunkSize)
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
                report(event)
            }
            while position < entry.size {
                if cancelled.withLockedValue({ $0.contains(offer.id) }) { throw PeerSessionError.cancelled }
                // The header, then the file read straight in after it (as for a single file).
                let want = Int(min(chunk, entry.size - position))
                var message = ByteBuffer()
                message.reserveCapacity(TransferMessage.entryChunkHeaderSize + want)
                TransferMessage.writeEntryChunkHeader(offer.id, index: point.index, offset: position, into: &message)
                let count = try reader.read(upTo: want, appendingTo: &message)
                guard count > 0 else { throw PeerSessionError.transferFailed("\(entry.path) shrank while being sent") }
                message.withUnsafeReadableBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0.suffix(count))) }
                try await pace(message.readableBytes, of: offer.id, to: peer)
                try await pipeline.send(encoded: message, to: peer, through: flow)
                position += UInt64(count)
                sent += UInt64(count)
                if let event = progress.advance(by: UInt64(count), in: entry, at: position) {
                    report(event)
                }
            }
            guard try reader.stamp() == stamp, try FileStamp.of(url) == stamp else {
                throw PeerSessionError.transferFailed("\(entry.path) changed while being sent")
            }
            try await pipeline.send(
                .entryEnd(offer.id, index: point.index, sha256: hasher.digest()),
                to: peer,
                through: flow
            )
        }
        try await pipeline.drain()
        return sent
    }

    /// Waits until the send limits (``TransferRateLimits``) let `bytes` more of transfer `id` go to `peer`,
    /// looking every quarter second whether the transfer was cancelled meanwhile.
    func pace(_ bytes: Int, of id: TransferID, to peer: PeerID) async throws {
        let device = flow.device(of: peer)
        guard let until = flow.pacing.admit(bytes, .sending, device: device, now: clock.now) else { return }
        while clock.now < until {
            if cancelled.withLockedValue({ $0.contains(id) }) { throw PeerSessionError.cancelled }
            try await clock.sleep(until: min(until, clock.now + .milliseconds(250)))
        }
    }
}
