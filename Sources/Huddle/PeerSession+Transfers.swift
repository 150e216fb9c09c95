import Crypto
public import Foundation
import HuddleTransport
public import HuddleWire
import NIOConcurrencyHelpers
import NIOCore

extension PeerSession {
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
        try await sendFile(at: url, to: peer, type: type, id: nil)
    }

    /// Starts sending the file at `url` to `peer` (as ``sendFile(at:to:type:)``) and hands back at once its ID, its
    /// progress and a way to cancel it; ``FileSending/value`` waits for the end.
    public nonisolated func startSendingFile(at url: URL, to peer: PeerID, type: String = "") -> FileSending {
        startSending { id in try await self.sendFile(at: url, to: peer, type: type, id: id) }
    }

    /// Runs `send` for a new transfer ID in a task of its own, its progress watched, and hands it back at once.
    nonisolated func startSending<Outcome>(
        _ send: @escaping @Sendable (TransferID) async throws -> Outcome
    ) -> TransferSending<Outcome> {
        let id = TransferID.random()
        let (progress, continuation) = AsyncStream<TransferProgress>.makeStream(bufferingPolicy: .bufferingNewest(64))
        transferWatchers.withLockedValue { $0[id] = continuation }
        let task = Task {
            defer { self.transferWatchers.withLockedValue { $0.removeValue(forKey: id) }?.finish() }
            return try await send(id)
        }
        return TransferSending(id: id, progress: progress, task: task)
    }

    /// Streams what is sent, off the actor; a sender's progress goes to the session's events and to the
    /// transfer's ``TransferSending/progress``.
    nonisolated var streamer: TransferStreamer {
        let (broadcast, watchers) = (self.broadcast, self.transferWatchers)
        return TransferStreamer(
            flow: flow,
            configuration: configuration.transfers,
            cancelled: cancelledTransfers
        ) { progress in
            broadcast.yield(.transferProgress(progress))
            watchers.withLockedValue { $0[progress.id] }?.yield(progress)
        }
    }

    func sendFile(at url: URL, to peer: PeerID, type: String, id: TransferID?) async throws -> TransferID {
        guard flow.channel(for: peer) != nil else { throw PeerSessionError.notConnected(peer) }
        let (stamp, key, identity) = try await Task.detached {
            let identity = FileIdentity(statOf: url.path)
            let (stamp, key) = try ResumeKey.of(file: url)
            return (stamp, key, identity)
        }.value
        var send = SingleSend(name: url.lastPathComponent, size: stamp.size, resumeKey: key, type: type, stamp: stamp)
        send.identity = identity
        send.id = id
        return try await sendSingle(send, source: .file(url), to: peer)
    }

    /// Offers one file's worth of bytes, streams what the receiver lacks and waits for its verdict.
    func sendSingle(_ send: SingleSend, source: TransferSource, to peer: PeerID) async throws -> TransferID {
        let id = send.id ?? TransferID.random()
        guard transfers.startSending(id, to: peer) else { throw PeerSessionError.transferFailed("transfer ID in use") }
        defer { forgetOutgoing(id) }
        // Cancelling the calling task cancels the transfer (the receiver is told, partial files stay).
        return try await withTaskCancellationHandler {
            let offer = TransferOffer(
                id: id,
                name: send.name,
                size: send.size,
                resumeKey: send.resumeKey,
                type: send.type
            )
            let answer = try await ask(.offer(offer), id: id, peer: peer, decisionWithin: transferDecisionTimeout)
            guard case .offset(let offset) = answer else {
                throw PeerSessionError.transferFailed("the receiver answered a file offer as a directory")
            }
            guard offset <= send.size else {
                throw PeerSessionError.transferFailed("the receiver asked to resume past the end")
            }
            let sha256: [UInt8]
            do {
                sha256 = try await streamer.streamSingle(source, send, id: id, from: offset, to: peer)
            } catch PeerSessionError.cancelled {
                throw earlyFailure(id) ?? .cancelled
            } catch let error as PeerSessionError {
                // The file changed or could not be read: the receiver stops too, keeping what it has.
                if error.code == .transferFailed, let reason = error.reason {
                    sendResourceNow(.cancel(id, reason: reason), to: peer)
                }
                throw error
            }
            _ = try await ask(.end(id, sha256: sha256), id: id, peer: peer)
            return id
        } onCancel: { [weak self] in
            Task { await self?.cancelTransfer(id) }
        }
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
        let offer: TransferOffer
        switch transfers.takeOffer(transfer.id) {
        case .file(let file)?: offer = file
        case .directory(let tree)?: return try acceptDirectory(transfer, offer: tree, into: directory)
        case nil: throw PeerSessionError.transferFailed("no such offer")
        }
        do {
            try openPartial(transfer, offer: offer, in: directory)
        } catch {
            // The sender is told at once rather than left waiting for an answer.
            sendResourceNow(.decline(transfer.id, reason: "the receiver cannot write: \(error)"), to: transfer.peer)
            throw error
        }
    }

    func openPartial(_ transfer: IncomingTransfer, offer: TransferOffer, in directory: URL) throws {
        let partial = directory.appendingPathComponent(
            ".\(transfer.name).\(transfer.contentKey.prefix(16)).huddle-partial"
        )
        // Two offers of the same content at once would write one partial file from two offsets.
        guard !transfers.partialsInUse.contains(partial) else {
            throw PeerSessionError.transferFailed("\(transfer.name) is being received already")
        }
        let inUse = Set(transfers.partialsInUse.map(\.lastPathComponent))
        PartialFile.removeStale(of: transfer.name, keeping: partial, in: directory, inUse: inUse)
        let (handle, have, hasher, identity) = try PartialFile.openForWriting(partial, limit: offer.size)
        let sink = fileSink(handle: handle, hasher: hasher)
        let file = IncomingFile(
            transfer: transfer,
            offer: offer,
            sink: .file(sink, partial: partial, directory: directory),
            hasher: FileHasher(),
            written: have,
            progressInterval: configuration.transfers.progressInterval
        )
        file.partialIdentity = identity
        transfers.receiving(file)
        sendResourceNow(.accept(transfer.id, offset: have), to: transfer.peer)
    }

    /// A sink for a file (a single file's partial file or a directory entry's part) open at its end.
    func fileSink(handle: FileHandle, hasher: FileHasher) -> TransferFileSink {
        TransferFileSink(
            handle: handle,
            hasher: hasher,
            flow: flow,
            writeSize: configuration.transfers.writeSize,
            beforeWrite: configuration.beforeTransferWrite
        )
    }

    /// Declines an offered file or directory; the sender's call throws `.transferDeclined`.
    public func declineTransfer(_ transfer: IncomingTransfer, reason: String = "declined") {
        guard transfers.takeOffer(transfer.id) != nil else { return }
        sendResourceNow(.decline(transfer.id, reason: reason), to: transfer.peer)
    }

    /// Stops a transfer from either side: the other side is told (CANCEL), the sender's call throws `.cancelled`,
    /// and the receiver keeps its partial file (or staging directory) for a later resume.
    public func cancelTransfer(_ id: TransferID) {
        guard let transfer = transfers[id] else { return }
        switch transfer {
        case .sending(let outgoing):
            cancelledTransfers.withLockedValue { _ = $0.insert(id) }
            sendResourceNow(.cancel(id, reason: "cancelled by the sender"), to: outgoing.peer)
            answer(id, with: .failure(.cancelled))
        case .receivingFile(let file):
            transfers.forget(id)
            sendResourceNow(.cancel(id, reason: "cancelled by the receiver"), to: file.transfer.peer)
            closeKeepingPartial(file, reason: "cancelled")
        case .receivingDirectory(let tree):
            sendResourceNow(.cancel(id, reason: "cancelled by the receiver"), to: tree.transfer.peer)
            stopDirectory(tree, reason: "cancelled")
        case .offeredFile(_, let peer), .offeredDirectory(_, let peer):
            transfers.forget(id)
            sendResourceNow(.decline(id, reason: "cancelled"), to: peer)
        }
    }

    // MARK: - Sending side

    func sendResourceNow(_ message: TransferMessage, to peer: PeerID) {
        guard let channel = flow.channel(for: peer) else { return }
        var buffer = channel.allocator.buffer(capacity: 64)
        message.encode(into: &buffer)
        channel.writeAndFlush(PeerOutbound.resource(buffer), promise: nil)
    }
}
