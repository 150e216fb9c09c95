import Foundation
import HuddleTransport
import HuddleWire
import NIOConcurrencyHelpers
import NIOCore

extension SessionTransfers {
    /// The work of ``PeerSession/sendDirectory(at:to:type:)``.
    @discardableResult
    func sendDirectory(at url: URL, to peer: PeerID, type: String = "") async throws -> DirectoryTransferReport {
        try await sendDirectory(at: url, to: peer, type: type, id: .random())
    }

    /// The work of ``PeerSession/startSendingDirectory(at:to:type:)``.
    nonisolated func startSendingDirectory(at url: URL, to peer: PeerID, type: String = "") -> DirectorySending {
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
        let scan = try await Task.detached { try sessionFileOperation { try DirectoryScan(of: url) } }.value
        let name = url.standardizedFileURL.resolvingSymlinksInPath().lastPathComponent
        let offer = DirectoryOffer(id: id, name: name, type: type, entries: scan.entries)
        do {
            try offer.validate(limits: configuration.transfers.manifestLimits)
        } catch {
            throw PeerSessionError.transferFailed("cannot offer \(url.path): \(error)")
        }
        guard table.startSending(id, to: peer) else { throw PeerSessionError.transferFailed("transfer ID in use") }
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
            let sent = try await streaming(id, to: peer) {
                try await streamer.streamDirectory(offer, scan: scan, needed: needed, to: peer)
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
}
