import Crypto
import Foundation
import HuddleTestSupport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

@Suite("In-memory transfers: the size limit and the check")
struct InMemoryLimitTests {
    @Test func anOfferOverTheLimitIsRefusedAndStaysOpenForADirectory() async throws {
        var configuration = PeerSessionConfiguration()
        configuration.transfers.maximumInMemorySize = 4096
        try await withTransferLink(configuration) { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let bobID = bob.peerID
            let payload = try InMemoryTransferTests.image(5000)
            let sending = Task { try await ada.transfers.sendData(payload, named: "big.bin", to: bobID) }
            let offered = try #require(await bob.offer())
            await #expect(throws: PeerSessionError.transferTooLarge(limit: 4096, size: 5000)) {
                try await bob.transfers.acceptTransferIntoMemory(offered)
            }
            let target = try scope.directory()
            try await bob.accept(offered, into: target)
            _ = try await sending.value
            let kept = try #require(await bob.finished())
            #expect(try Data(contentsOf: kept) == payload)
        }
    }

    @Test func dataThatDoesNotMatchTheSendersHashIsNeverDelivered() async throws {
        try await withTransferLink { link, _ in
            let (mallory, bob) = (link.ada, link.bob)
            let id = TransferID(bytes: Array(repeating: 3, count: 16))
            let promised = Array(SHA256.hash(data: Array(repeating: UInt8(1), count: 2000)))
            try await mallory.sendRaw(
                .offer(TransferOffer(id: id, name: "a.png", size: 2000, resumeKey: promised))
            )
            let offered = try #require(await bob.offer())
            try await bob.transfers.acceptTransferIntoMemory(offered)
            let chunk = ByteBuffer(bytes: Array(repeating: UInt8(2), count: 2000))
            try await mallory.sendRaw(.chunk(id, offset: 0, data: chunk))
            try await mallory.sendRaw(.end(id, sha256: promised))
            #expect(await bob.failure() == "SHA-256 mismatch: the data does not match the sender's")
            #expect(bob.events.allSatisfy { if case .transferReceivedData = $0 { false } else { true } })
        }
    }
}
