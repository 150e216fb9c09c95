import Crypto
import Foundation
import HuddleTestSupport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// What one peer can make a receiver hold: transfers into memory share one budget, a peer has a bounded number
/// of transfers offered or under way, and an offer never takes over a transfer ID in use.
@Suite("In-memory transfers: budget, per-peer limit, transfer IDs")
struct InMemoryBudgetTests {
    static func payload(_ size: Int, seed: UInt8) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    static func offer(_ id: TransferID, _ bytes: [UInt8], name: String = "item.bin") -> TransferMessage {
        .offer(TransferOffer(id: id, name: name, size: UInt64(bytes.count), resumeKey: Array(SHA256.hash(data: bytes))))
    }

    /// Streams `bytes` for transfer `id` in 60 KiB chunks, then its END.
    static func stream(_ bytes: [UInt8], id: TransferID, from sender: TransferEnd, to peer: PeerID) async throws {
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + 60 * 1024)
            let chunk = ByteBuffer(bytes: bytes[offset..<end])
            try await sender.sendRaw(.chunk(id, offset: UInt64(offset), data: chunk))
            offset = end
        }
        try await sender.sendRaw(.end(id, sha256: Array(SHA256.hash(data: bytes))))
    }

    func data(_ id: TransferID, from probe: TransferEnd) async -> Data? {
        await probe.wait { event in
            if case .transferReceivedData(id, _, let data) = event { return data }
            return nil
        }
    }

    /// One peer offers far more than the budget; each offer alone is within the per-transfer limit. Only what fits
    /// is taken, the rest refused with the budget error, and what is reserved never passes the budget.
    @Test
    func offersBeyondTheBudgetAreRefusedAndMemoryStaysBounded() async throws {
        let budget: UInt64 = 1 << 20
        var configuration = PeerSessionConfiguration()
        configuration.transfers.maximumInMemorySize = 512 * 1024
        configuration.transfers.maximumInMemoryBytes = budget
        configuration.transfers.maximumIncomingTransfersPerPeer = 64
        try await withTransferLink(configuration) { link, _ in
            let (mallory, bob, bobID) = (link.ada, link.bob, link.bob.peerID)
            let size = 300_000
            let items = (0..<20).map { (TransferID.random(), Self.payload(size, seed: UInt8($0))) }
            for (id, bytes) in items { try await mallory.sendRaw(Self.offer(id, bytes)) }
            var offered: [TransferID: IncomingTransfer] = [:]
            for (id, _) in items {
                offered[id] = try #require(
                    await bob.wait { event in
                        if case .transferOffered(let transfer) = event, transfer.id == id { return transfer }
                        return nil
                    }
                )
            }
            var accepted: [TransferID] = []
            var refusals: [PeerSessionError] = []
            for (id, _) in items {
                do {
                    try await bob.transfers.acceptTransferIntoMemory(try #require(offered[id]))
                    accepted.append(id)
                } catch let error as PeerSessionError {
                    refusals.append(error)
                }
                #expect(await bob.transfers.inMemoryReservedBytes <= budget)
            }
            #expect(accepted == items.prefix(3).map(\.0))
            #expect(refusals.count == 17)
            #expect(
                refusals.allSatisfy {
                    $0 == .inMemoryBudgetExhausted(budget: budget, reserved: 3 * UInt64(size), size: UInt64(size))
                }
            )
            #expect(
                refusals.first?.description
                    == "300000 bytes do not fit in the in-memory budget of 1048576 (900000 held by other transfers)"
            )

            // What was taken arrives whole; then the budget is free again for an offer refused before.
            for (id, bytes) in items.prefix(3) {
                try await Self.stream(bytes, id: id, from: mallory, to: bobID)
                #expect(await data(id, from: bob) == Data(bytes))
            }
            #expect(await bob.transfers.inMemoryReservedBytes == 0)
            let (laterID, laterBytes) = items[3]
            try await bob.transfers.acceptTransferIntoMemory(try #require(offered[laterID]))
            try await Self.stream(laterBytes, id: laterID, from: mallory, to: bobID)
            #expect(await data(laterID, from: bob) == Data(laterBytes))
        }
    }

    /// The peer's offers past its limit are declined at once, before anyone is asked; an honest sender's call
    /// says why.
    @Test
    func offersPastThePerPeerLimitAreDeclined() async throws {
        var configuration = PeerSessionConfiguration()
        configuration.transfers.maximumIncomingTransfersPerPeer = 4
        try await withTransferLink(configuration) { link, _ in
            let (mallory, bob) = (link.ada, link.bob)
            let (bobID, malloryID) = (bob.peerID, mallory.peerID)
            let ids = (0..<4).map { _ in TransferID.random() }
            for id in ids {
                try await mallory.sendRaw(Self.offer(id, Self.payload(100, seed: 1)))
            }
            for id in ids {
                #expect(
                    await bob.wait { event in
                        if case .transferOffered(let transfer) = event, transfer.id == id { return true }
                        return nil
                    } == true
                )
            }
            bob.recorder.clear()
            let sending = Task {
                try await mallory.transfers.sendData(Data(Self.payload(100, seed: 2)), named: "x", to: bobID)
            }
            let outcome = await bob.wait { event -> String? in
                if case .transferOffered = event { return "offered" }
                if case .peerError(malloryID, let error) = event, error.code == .tooManyTransfers,
                    let limit = error.limit
                {
                    return "refused \(limit.limit)"
                }
                return nil
            }
            #expect(outcome == "refused 4")
            let result = try #require(await result(of: sending))
            #expect(declined(result), "the sender's call ended with \(result)")
            if case .failure(let error as PeerSessionError) = result {
                #expect(error == .transferDeclined("too many transfers at once: the limit is 4"))
            }
        }
    }

    /// An offer reusing the ID of a transfer being received (into memory) is refused, and the first one
    /// completes with its own bytes.
    @Test
    func anOfferReusingAnActiveTransferIDIsRefused() async throws {
        try await withTransferLink { link, scope in
            let (mallory, bob) = (link.ada, link.bob)
            let (bobID, malloryID) = (bob.peerID, mallory.peerID)
            let id = TransferID.random()
            let first = Self.payload(2000, seed: 1)
            try await mallory.sendRaw(Self.offer(id, first))
            try await bob.transfers.acceptTransferIntoMemory(try #require(await bob.offer()))
            bob.recorder.clear()
            let second = Self.payload(5000, seed: 2)
            try await mallory.sendRaw(Self.offer(id, second, name: "other.bin"))
            let outcome = await bob.wait { event -> String? in
                if case .transferOffered = event { return "offered" }
                if case .peerError(malloryID, let error) = event, error.code == .transferFailed { return error.reason }
                return nil
            }
            #expect(outcome == "refused an offer that reuses the ID of a transfer in progress")
            try await Self.stream(first, id: id, from: mallory, to: bobID)
            #expect(await data(id, from: bob) == Data(first))
            #expect(await bob.transfers.inMemoryReservedBytes == 0)
        }
    }

    /// The same for a file being received to disk, and a directory offer reusing its ID: refused, and the file is
    /// kept whole; a pending offer's ID cannot be taken over either.
    @Test
    func aDirectoryOfferReusingTheIDOfAFileIsRefused() async throws {
        try await withTransferLink { link, scope in
            let (mallory, bob) = (link.ada, link.bob)
            let (bobID, malloryID) = (bob.peerID, mallory.peerID)
            let id = TransferID.random()
            let first = Self.payload(70_000, seed: 3)
            try await mallory.sendRaw(Self.offer(id, first, name: "kept.bin"))
            let offered = try #require(await bob.offer())
            // While pending: a second offer of the ID does not replace it.
            try await mallory.sendRaw(
                Self.offer(id, Self.payload(10, seed: 4), name: "swap.bin")
            )
            #expect(
                await bob.wait { event -> Bool? in
                    if case .peerError(malloryID, let error) = event, error.code == .transferFailed { return true }
                    if case .transferOffered(let transfer) = event, transfer.name == "swap.bin" { return false }
                    return nil
                } == true
            )
            let target = try scope.directory()
            try await bob.accept(offered, into: target)
            bob.recorder.clear()
            let tree = DirectoryOffer(
                id: id,
                name: "tree",
                entries: [DirectoryEntry(path: "f", kind: .file(size: 1, key: Array(repeating: 0, count: 32)))]
            )
            try await mallory.sendRaw(.directoryOffer(tree))
            let outcome = await bob.wait { event -> String? in
                if case .transferOffered = event { return "offered" }
                if case .peerError(malloryID, let error) = event, error.code == .transferFailed { return error.reason }
                return nil
            }
            #expect(outcome == "refused an offer that reuses the ID of a transfer in progress")
            try await Self.stream(first, id: id, from: mallory, to: bobID)
            let kept = try #require(await bob.finished())
            #expect(kept.lastPathComponent == "kept.bin")
            #expect(try Data(contentsOf: kept) == Data(first))
        }
    }
}
