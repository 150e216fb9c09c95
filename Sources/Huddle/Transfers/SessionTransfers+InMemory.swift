import Foundation
import HuddleWire

extension SessionTransfers {
    /// The work of ``PeerSession/sendData(_:named:to:type:)``.
    @discardableResult
    func sendData(
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

    /// The work of ``PeerSession/acceptTransferIntoMemory(_:)``.
    func acceptTransferIntoMemory(_ transfer: IncomingTransfer) throws {
        guard !transfer.isDirectory else { throw PeerSessionError.transferFailed("a directory cannot go to memory") }
        guard let offer = table.fileOffer(transfer.id) else {
            throw PeerSessionError.transferFailed("no such offer")
        }
        let limit = configuration.transfers.maximumInMemorySize
        guard offer.size <= limit else { throw PeerSessionError.transferTooLarge(limit: limit, size: offer.size) }
        let (budget, reserved) = (configuration.transfers.maximumInMemoryBytes, inMemoryReservedBytes)
        guard offer.size <= budget, reserved <= budget - offer.size else {
            throw PeerSessionError.inMemoryBudgetExhausted(budget: budget, reserved: reserved, size: offer.size)
        }
        table.forget(transfer.id)
        let file = IncomingFile(
            transfer: transfer,
            offer: offer,
            sink: .memory,
            hasher: FileHasher(),
            written: 0,
            progressInterval: configuration.transfers.progressInterval
        )
        file.memory.reserveCapacity(Int(offer.size))  // within the budget, checked above
        table.receiving(file)
        sendResourceNow(.accept(transfer.id, offset: 0), to: transfer.peer)
    }
}
