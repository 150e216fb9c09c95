import Crypto
import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

@Suite("File transfers")
struct FileTransferTests {
    @Test func aFileArrivesIdenticalUnderItsNameWithProgress() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let bobID = bob.peerID
            let source = try scope.directory()
            let target = try scope.directory()
            let url = try TransferTests.file(6 * 1024 * 1024 + 123, named: "photo.png", in: source)
            try Data("taken".utf8).write(to: target.appendingPathComponent("photo.png"))
            let sending = Task { try await ada.transfers.sendFile(at: url, to: bobID, type: "image/png") }
            let offered = try #require(await bob.offer())
            #expect(offered.name == "photo.png" && offered.size == 6 * 1024 * 1024 + 123 && offered.type == "image/png")
            try await bob.accept(offered, into: target)
            _ = try await sending.value
            let kept = try #require(
                await bob.wait { event -> URL? in
                    if case .transferFinished(_, _, let url) = event { return url }
                    return nil
                }
            )
            #expect(kept.lastPathComponent == "photo (2).png")  // the existing photo.png is never overwritten
            // Every chunk's charge was let go of once written: nothing of the file is left on the receive budget.
            #expect(bob.flow.bufferedTransferBytes.now == 0)
            #expect(bob.flow.bufferedTransferBytes.peak > 0)
            #expect(try Data(contentsOf: kept) == Data(contentsOf: url))
            #expect(try Data(contentsOf: target.appendingPathComponent("photo.png")) == Data("taken".utf8))
            let progress = ada.events.compactMap { event -> UInt64? in
                if case .transferProgress(let p) = event, p.direction == .sending { return p.completed }
                return nil
            }
            #expect(progress == progress.sorted() && progress.last == UInt64(6 * 1024 * 1024 + 123))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: target.path).sorted() == [
                    "photo (2).png", "photo.png",
                ]
            )
        }
    }

    @Test func declineAndHostileNamesAreTypedErrorsAndWriteNothing() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let bobID = bob.peerID
            let source = try scope.directory()
            let target = try scope.directory()
            let url = try TransferTests.file(1000, named: "note.txt", in: source)
            let sending = Task { try await ada.transfers.sendFile(at: url, to: bobID) }
            let offered = try #require(await bob.offer())
            await bob.transfers.declineTransfer(offered, reason: "not now")
            await #expect(throws: PeerSessionError.transferDeclined("not now")) { try await sending.value }
            #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty)
            for name in ["../escape", "/etc/passwd", "a/b", "..", "CON", "nul.txt", "bad\u{0}name", "x\u{202E}txt.exe"]
            {
                #expect(throws: TransferNameError.self) { try TransferName.validate(name) }
            }
            #expect(try TransferName.validate("Ünïcode photo (1).png") == "Ünïcode photo (1).png")
        }
    }

    /// A peer that streams chunks of a transfer nobody offered (and cancels it) gets nothing kept: each message is
    /// dropped, and with it its charge, so the receive budget holds nothing of them afterwards.
    @Test func chunksOfATransferNobodyOfferedLeaveNothingOnTheReceiveBudget() async throws {
        try await withTransferLink { link, _ in
            let (ada, bob) = (link.ada, link.bob)
            let id = TransferID(bytes: Array(repeating: 9, count: 16))
            let chunk = ByteBuffer(repeating: 0xAB, count: 64 * 1024)
            for index in 0..<8 {
                try await ada.sendRaw(.chunk(id, offset: UInt64(index * chunk.readableBytes), data: chunk))
            }
            try await ada.sendRaw(.cancel(id, reason: "never offered"))
            // Each write completes once Bob's transfers have handled the message.
            #expect(bob.flow.bufferedTransferBytes.peak >= chunk.readableBytes)
            #expect(bob.flow.bufferedTransferBytes.now == 0)
        }
    }
}
