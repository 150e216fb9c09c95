public import Foundation
public import HuddleWire

extension PeerSession {
    /// Sends `data` (an image, a document) to `peer` as a file called `name`: the same offer, chunked stream,
    /// progress and SHA-256 check as ``sendFile(at:to:type:)``, read from memory instead of disk.
    ///
    /// The receiver may keep it as a file or take it into memory with ``acceptTransferIntoMemory(_:)``.
    /// - Returns: when the receiver has verified the data.
    /// - Throws: ``PeerSessionError``: `.transferDeclined`, `.transferFailed`, `.notConnected`.
    @discardableResult
    public func sendData(
        _ data: Data,
        named name: String,
        to peer: PeerID,
        type: String = ""
    ) async throws -> TransferID {
        guard flow.channel(for: peer) != nil else { throw PeerSessionError.notConnected(peer) }
        return try await sendSingle(
            SingleSend(name: name, size: UInt64(data.count), resumeKey: ResumeKey.of(data: data), type: type),
            source: .memory(data),
            to: peer
        )
    }

    /// Accepts an offered file into memory rather than onto disk: when every byte has arrived and matches the
    /// SHA-256 the sender gives at the end, the data comes as ``PeerSessionEvent/transferReceivedData(_:_:_:)``.
    ///
    /// Only offers up to ``TransferConfiguration/maximumInMemorySize`` are taken, and only while all transfers
    /// into memory together stay within ``TransferConfiguration/maximumInMemoryBytes``: each reserves its offered
    /// size from accept to its end. The receiver never holds more than the offered size (chunks beyond it fail the
    /// transfer). Nothing is kept for a resume.
    /// - Throws: `.transferTooLarge` when the offer is over the limit, `.inMemoryBudgetExhausted` when it does
    ///   not fit in what is left of the budget (either way the offer stays open: accept it into a directory or
    ///   decline it), `.transferFailed` for a directory or an unknown offer.
    public func acceptTransferIntoMemory(_ transfer: IncomingTransfer) throws {
        guard !transfer.isDirectory else { throw PeerSessionError.transferFailed("a directory cannot go to memory") }
        guard let offer = transfers.fileOffer(transfer.id) else {
            throw PeerSessionError.transferFailed("no such offer")
        }
        let limit = configuration.transfers.maximumInMemorySize
        guard offer.size <= limit else { throw PeerSessionError.transferTooLarge(limit: limit, size: offer.size) }
        let (budget, reserved) = (configuration.transfers.maximumInMemoryBytes, inMemoryReservedBytes)
        guard offer.size <= budget, reserved <= budget - offer.size else {
            throw PeerSessionError.inMemoryBudgetExhausted(budget: budget, reserved: reserved, size: offer.size)
        }
        transfers.forget(transfer.id)
        let file = IncomingFile(
            transfer: transfer,
            offer: offer,
            sink: .memory,
            hasher: FileHasher(),
            written: 0,
            progressInterval: configuration.transfers.progressInterval
        )
        file.memory.reserveCapacity(Int(offer.size))  // within the budget, checked above
        transfers.receiving(file)
        sendResourceNow(.accept(transfer.id, offset: 0), to: transfer.peer)
    }
}

extension PeerSession {
    /// The bytes reserved now by all transfers into memory: each one's offered size, from accept to its end.
    var inMemoryReservedBytes: UInt64 { transfers.inMemoryReservedBytes }
}
