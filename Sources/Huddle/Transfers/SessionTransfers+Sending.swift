import Crypto
import Foundation
import HuddleTransport
import HuddleWire
import NIOConcurrencyHelpers
import NIOCore

extension SessionTransfers {
    /// The work of ``PeerSession/sendFile(at:to:type:)``.
    @discardableResult
    func sendFile(at url: URL, to peer: PeerID, type: String = "") async throws -> TransferID {
        try await sendFile(at: url, to: peer, type: type, id: nil)
    }

    /// The work of ``PeerSession/startSendingFile(at:to:type:)``.
    nonisolated func startSendingFile(at url: URL, to peer: PeerID, type: String = "") -> FileSending {
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
            cancelled: cancelledTransfers,
            clock: configuration.clock
        ) { progress in
            broadcast.yield(.transferProgress(progress))
            watchers.withLockedValue { $0[progress.id] }?.yield(progress)
        }
    }

    func sendFile(at url: URL, to peer: PeerID, type: String, id: TransferID?) async throws -> TransferID {
        guard flow.channel(for: peer) != nil else { throw PeerSessionError.notConnected(peer) }
        let (stamp, key, identity) = try await Task.detached {
            let identity = FileIdentity(statOf: url.path)
            let (stamp, key) = try sessionFileOperation { try ResumeKey.of(file: url) }
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
        guard table.startSending(id, to: peer) else { throw PeerSessionError.transferFailed("transfer ID in use") }
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
            let sha256 = try await streaming(id, to: peer) {
                try await streamer.streamSingle(source, send, id: id, from: offset, to: peer)
            }
            _ = try await ask(.end(id, sha256: sha256), id: id, peer: peer)
            return id
        } onCancel: { [weak self] in
            Task { await self?.cancelTransfer(id) }
        }
    }

    /// The work of ``PeerSession/acceptTransfer(_:into:)``.
    func acceptTransfer(_ transfer: IncomingTransfer, into directory: URL, sender: DeviceID?) throws {
        let offer: TransferOffer
        switch table.takeOffer(transfer.id) {
        case .file(let file)?: offer = file
        case .directory(let tree)?: return try acceptDirectory(transfer, offer: tree, into: directory, sender: sender)
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
        guard !table.partialsInUse.contains(partial) else {
            throw PeerSessionError.transferFailed("\(transfer.name) is being received already")
        }
        let inUse = Set(table.partialsInUse.map(\.lastPathComponent))
        PartialFile.removeStale(of: transfer.name, keeping: partial, in: directory, inUse: inUse)
        let (handle, have, hasher, identity) = try sessionFileOperation {
            try PartialFile.openForWriting(partial, limit: offer.size)
        }
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
        table.receiving(file)
        sendResourceNow(.accept(transfer.id, offset: have), to: transfer.peer)
    }

    /// A sink for a file (a single file's partial file or a directory entry's part) open at its end.
    func fileSink(handle: FileHandle, hasher: FileHasher) -> TransferFileSink {
        TransferFileSink(
            handle: handle,
            hasher: hasher,
            writeSize: configuration.transfers.writeSize,
            beforeWrite: configuration.beforeTransferWrite
        )
    }

    /// The work of ``PeerSession/declineTransfer(_:reason:)``.
    func declineTransfer(_ transfer: IncomingTransfer, reason: String = "declined") {
        guard table.takeOffer(transfer.id) != nil else { return }
        sendResourceNow(.decline(transfer.id, reason: reason), to: transfer.peer)
    }

    /// The work of ``PeerSession/cancelTransfer(_:)``.
    func cancelTransfer(_ id: TransferID) {
        guard let transfer = table[id] else { return }
        switch transfer {
        case .sending(let outgoing):
            cancelledTransfers.withLockedValue { _ = $0.insert(id) }
            sendResourceNow(.cancel(id, reason: "cancelled by the sender"), to: outgoing.peer)
            answer(id, with: .failure(.cancelled))
        case .receivingFile(let file):
            table.forget(id)
            sendResourceNow(.cancel(id, reason: "cancelled by the receiver"), to: file.transfer.peer)
            closeKeepingPartial(file, reason: "cancelled")
        case .receivingDirectory(let tree):
            sendResourceNow(.cancel(id, reason: "cancelled by the receiver"), to: tree.transfer.peer)
            stopDirectory(tree, reason: "cancelled")
        case .offeredFile(_, let peer), .offeredDirectory(_, let peer):
            table.forget(id)
            sendResourceNow(.decline(id, reason: "cancelled"), to: peer)
        }
    }

    // MARK: - Sending side

    /// Runs `stream`, the bytes of transfer `id`. A file that changed or could not be read stops the receiver too,
    /// which keeps what it has verified; a cancelled stream throws why the transfer ended early, if it did.
    func streaming<T: Sendable>(
        _ id: TransferID,
        to peer: PeerID,
        _ stream: () async throws -> T
    ) async throws -> T {
        do {
            return try await stream()
        } catch PeerSessionError.cancelled {
            throw earlyFailure(id) ?? .cancelled
        } catch let error as PeerSessionError {
            if error.code == .transferFailed, let reason = error.reason {
                sendResourceNow(.cancel(id, reason: reason), to: peer)
            }
            throw error
        } catch let error as FileTransferError {
            sendResourceNow(.cancel(id, reason: error.reason), to: peer)
            throw PeerSessionError.transferFailed(error.reason)
        }
    }

    func sendResourceNow(_ message: TransferMessage, to peer: PeerID) {
        guard let channel = flow.channel(for: peer) else { return }
        var buffer = channel.allocator.buffer(capacity: 64)
        message.encode(into: &buffer)
        channel.writeAndFlush(PeerOutbound.resource(buffer), promise: nil)
    }
}
