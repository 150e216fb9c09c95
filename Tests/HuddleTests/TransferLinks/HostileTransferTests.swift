import Crypto
import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// Offers that lie: a sender built from the raw transfer messages, against a receiver's transfers over a
/// ``TransferLink``.
@Suite("Hostile transfer offers")
struct HostileTransferTests {

    static let id = TransferID(bytes: Array(repeating: 9, count: 16))

    /// Offers `declared` bytes, sends `data` in one chunk and ends claiming `hash`; returns the receiver's directory.
    func run(
        declared: UInt64,
        hash: [UInt8]?,
        data: [UInt8],
        on link: TransferLink,
        in scope: TestScope
    ) async throws -> (TransferEnd, URL, String?) {
        let (mallory, bob) = (link.ada, link.bob)
        let target = try scope.directory()
        try await mallory.sendRaw(
            .offer(
                TransferOffer(
                    id: Self.id,
                    name: "report.pdf",
                    size: declared,
                    resumeKey: Array(repeating: 7, count: 32)
                )
            )
        )
        let offered = try #require(await bob.offer())
        try await bob.accept(offered, into: target)
        try await mallory.sendRaw(.chunk(Self.id, offset: 0, data: ByteBuffer(bytes: data)))
        try await mallory.sendRaw(.end(Self.id, sha256: hash))
        let reason = await bob.failure()
        return (bob, target, reason)
    }

    @Test func anEndWithoutTheSHA256KeepsOnlyThePartialFile() async throws {
        try await withTransferLink { link, scope in
            let data = Array(repeating: UInt8(1), count: 5000)
            let (_, target, reason) = try await run(declared: 5000, hash: nil, data: data, on: link, in: scope)
            #expect(reason == "END without the file's SHA-256")
            let names = try FileManager.default.contentsOfDirectory(atPath: target.path)
            #expect(names.count == 1 && names[0].hasPrefix(".report.pdf.") && names[0].hasSuffix(".huddle-partial"))
        }
    }

    /// Two offers of the same content at once would write one partial file from two places: the second is
    /// refused with a typed error while the first goes on and is kept whole.
    @Test func aSecondOfferOfTheSameContentWhileTheFirstRunsIsRefused() async throws {
        try await withTransferLink { link, scope in
            let (mallory, bob) = (link.ada, link.bob)
            let target = try scope.directory()
            let data = Array(repeating: UInt8(5), count: 3000)
            let key = Array(repeating: UInt8(8), count: 32)
            let second = TransferID(bytes: Array(repeating: 10, count: 16))
            for id in [Self.id, second] {
                let offer = TransferOffer(id: id, name: "same.bin", size: 3000, resumeKey: key)
                try await mallory.sendRaw(.offer(offer))
            }
            let first = try #require(await bob.offer())
            let again = try #require(
                await bob.wait { event -> IncomingTransfer? in
                    if case .transferOffered(let offer) = event, offer.id == second { return offer }
                    return nil
                }
            )
            try await bob.accept(first, into: target)
            await #expect(throws: PeerSessionError.transferFailed("same.bin is being received already")) {
                try await bob.accept(again, into: target)
            }
            try await mallory.sendRaw(.chunk(Self.id, offset: 0, data: ByteBuffer(bytes: data)))
            let digest = Array(SHA256.hash(data: data))
            try await mallory.sendRaw(.end(Self.id, sha256: digest))
            let kept = try #require(await bob.finished())
            #expect(try Data(contentsOf: kept) == Data(data))
        }
    }

    @Test func aHashMismatchKeepsNothing() async throws {
        try await withTransferLink { link, scope in
            let data = Array(repeating: UInt8(1), count: 5000)
            let (_, target, reason) = try await run(
                declared: 5000,
                hash: Array(repeating: 0, count: 32),
                data: data,
                on: link,
                in: scope
            )
            #expect(reason?.contains("SHA-256 mismatch") == true)
            #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty)
        }
    }

    @Test func moreDataThanDeclaredIsRefusedAndNothingIsKept() async throws {
        try await withTransferLink { link, scope in
            let data = Array(repeating: UInt8(2), count: 3000)
            let hash = Array(SHA256.hash(data: data))
            let (_, target, reason) = try await run(declared: 1000, hash: hash, data: data, on: link, in: scope)
            #expect(reason?.contains("does not fit") == true)
            #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty)
        }
    }

    @Test func lessDataThanDeclaredIsNeverReportedComplete() async throws {
        try await withTransferLink { link, scope in
            let data = Array(repeating: UInt8(3), count: 1000)
            let (bob, target, reason) = try await run(
                declared: 4000,
                hash: Array(repeating: 0, count: 32),
                data: data,
                on: link,
                in: scope
            )
            #expect(reason?.contains("ended at 1000 of 4000 bytes") == true)
            // Only the hidden partial file, kept for a resume; nothing under the offered name.
            let names = try FileManager.default.contentsOfDirectory(atPath: target.path)
            #expect(names.count == 1 && names[0].hasSuffix(".huddle-partial"))
            #expect(bob.recorder.events.allSatisfy { if case .transferFinished = $0 { false } else { true } })
        }
    }

    @Test func aPathInTheNameIsDeclinedBeforeAnythingIsWritten() async throws {
        try await withTransferLink { link, scope in
            let (mallory, bob) = (link.ada, link.bob)
            let sending = Task {
                try await mallory.sendRaw(
                    .offer(
                        TransferOffer(
                            id: Self.id,
                            name: "../../etc/cron.d/evil",
                            size: 10,
                            resumeKey: Array(repeating: 0, count: 32)
                        )
                    )
                )
            }
            try await sending.value
            let refused = await bob.wait { event -> String? in
                if case .peerError(_, let error) = event, error.code == .transferFailed { return error.reason }
                return nil
            }
            #expect(refused?.contains("path separator") == true)
            #expect(bob.recorder.events.allSatisfy { if case .transferOffered = $0 { false } else { true } })
        }
    }
}
