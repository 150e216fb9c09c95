import Crypto
import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// Cancels from either side at a point the link holds the transfer at, so each one lands while the transfer runs.
@Suite("Cancelling a transfer")
struct CancelTransferTests {
    /// Matches a chunk of transfer `id` that starts at `offset` or later: the link holds the transfer there.
    static func chunk(of id: TransferID, from offset: UInt64) -> @Sendable (TransferMessage) -> Bool {
        { message in
            if case .chunk(id, let at, _) = message { return at >= offset }
            return false
        }
    }

    @Test(arguments: [true, false])
    func eitherSideCancelsAndBothHear(receiverCancels: Bool) async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let bobID = bob.peerID
            let source = try scope.directory()
            let target = try scope.directory()
            let url = try TransferTests.file(64 * 1024 * 1024, named: "long.bin", in: source)
            let sending = Task { try await ada.transfers.sendFile(at: url, to: bobID) }
            let offered = try #require(await bob.offer())
            await link.hold(to: bob, when: Self.chunk(of: offered.id, from: 2 << 20))
            try await bob.accept(offered, into: target)
            #expect(await link.held(to: bob))
            if receiverCancels {
                await bob.transfers.cancelTransfer(offered.id)
            } else {
                await ada.transfers.cancelTransfer(offered.id)
            }
            await link.release(to: bob)
            await #expect(throws: PeerSessionError.self) { try await sending.value }
            let failed = await bob.wait { event -> Bool? in
                if case .transferFailed(offered.id, _, _) = event { return true }
                return nil
            }
            #expect(failed == true)
            #expect(bob.events.allSatisfy { if case .transferFinished = $0 { false } else { true } })
            // Nothing under the final name; the partial file stays for a resume.
            let names = try FileManager.default.contentsOfDirectory(atPath: target.path)
            #expect(names.count == 1 && names[0].hasSuffix(".huddle-partial"))
            // Both sides go on: the next file goes through.
            bob.recorder.clear()
            let note = try TransferTests.file(1000, named: "note.txt", in: source)
            let next = Task { try await ada.transfers.sendFile(at: note, to: bobID) }
            try await bob.accept(try #require(await bob.offer()), into: target)
            #expect(try Data(contentsOf: try #require(await bob.finished())) == Data(contentsOf: note))
            _ = try await next.value
        }
    }

    /// §5 G6: cancels at points picked at random, from each side in turn. Each time both sides hear it, the
    /// receiver reports no progress after it and keeps nothing under the final name; then a send without a cancel
    /// resumes where the partial file ends and the file arrives whole.
    @Test func cancelsAtRandomPointsThenTheTransferResumesWhole() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let bobID = bob.peerID
            let source = try scope.directory()
            let target = try scope.directory()
            let size: UInt64 = 64 << 20
            let url = try TransferTests.file(Int(size), named: "cut.bin", in: source, seed: 9)
            let points = (0..<4).map { _ in UInt64.random(in: 0...(40 << 20)) }.sorted()
            // Bob's events are kept for the whole test: each round waits for its own transfer's events.
            var cut: [TransferID] = []
            func nextOffer() async -> IncomingTransfer? {
                await bob.wait { event in
                    if case .transferOffered(let offer) = event, !cut.contains(offer.id) { return offer }
                    return nil
                }
            }
            for (round, point) in points.enumerated() {
                let sending = Task { try await ada.transfers.sendFile(at: url, to: bobID) }
                let offered = try #require(await nextOffer())
                await link.hold(to: bob, when: Self.chunk(of: offered.id, from: point))
                try await bob.accept(offered, into: target)
                #expect(await link.held(to: bob), "cut \(round) at \(point)")
                let receiverCancels = round % 2 == 0
                await (receiverCancels ? bob : ada).transfers.cancelTransfer(offered.id)
                await link.release(to: bob)
                await #expect(throws: PeerSessionError.self, "cut \(round) at \(point)") { try await sending.value }
                let failed = await bob.wait { event -> Bool? in
                    if case .transferFailed(offered.id, _, _) = event { return true }
                    return nil
                }
                #expect(failed == true, "cut \(round) at \(point)")
                cut.append(offered.id)
                let names = try FileManager.default.contentsOfDirectory(atPath: target.path)
                #expect(names.count == 1 && names[0].hasSuffix(".huddle-partial"), "\(names)")
            }
            let sending = Task { try await ada.transfers.sendFile(at: url, to: bobID) }
            let offered = try #require(await nextOffer())
            try await bob.accept(offered, into: target)
            let kept = try #require(await bob.finished())
            _ = try await sending.value
            #expect(try Data(contentsOf: kept) == Data(contentsOf: url))
            // Whatever a cut transfer still had on the way came before the next offer on the same connection, so
            // it is all in the record by now: none of it was reported as progress after its transfer failed.
            for (id, point) in zip(cut, points) {
                let afterFailure = bob.events.drop {
                    if case .transferFailed(id, _, _) = $0 { false } else { true }
                }
                #expect(
                    !afterFailure.contains {
                        if case .transferProgress(let progress) = $0, progress.id == id { true } else { false }
                    },
                    "progress after the cancel at \(point)"
                )
            }
            let resumedAt = bob.events.compactMap { event -> UInt64? in
                if case .transferProgress(let progress) = event, progress.id == offered.id { return progress.startedAt }
                return nil
            }.first
            #expect((resumedAt ?? 0) >= points.last!, "resumed at \(resumedAt ?? 0), last cut at \(points.last!)")
        }
    }

    /// §5 G2, as built: there are no per-chunk hashes, so a partial file damaged on disk between two attempts is
    /// found by the whole file's SHA-256 when the resumed transfer ends. That attempt fails, keeps nothing and
    /// removes the damaged part; the next one starts from zero and the file arrives whole.
    @Test func aPartialFileDamagedOnDiskIsCaughtDiscardedAndSentAgainWhole() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let bobID = bob.peerID
            let source = try scope.directory()
            let target = try scope.directory()
            let url = try TransferTests.file(32 << 20, named: "damaged.bin", in: source, seed: 11)
            let first = Task { try await ada.transfers.sendFile(at: url, to: bobID) }
            let offered = try #require(await bob.offer())
            await link.hold(to: bob, when: Self.chunk(of: offered.id, from: 4 << 20))
            try await bob.accept(offered, into: target)
            #expect(await link.held(to: bob))
            await bob.transfers.cancelTransfer(offered.id)
            await link.release(to: bob)
            _ = await first.result
            let partial = try #require(try FileManager.default.contentsOfDirectory(atPath: target.path).first)
            let handle = try FileHandle(forUpdating: target.appendingPathComponent(partial))
            try handle.seek(toOffset: 1 << 20)
            let byte = try #require(try handle.read(upToCount: 1)).first!
            try handle.seek(toOffset: 1 << 20)
            try handle.write(contentsOf: [byte ^ 0xFF])
            try handle.close()

            bob.recorder.clear()
            let second = Task { try await ada.transfers.sendFile(at: url, to: bobID) }
            let again = try #require(await bob.offer())
            try await bob.accept(again, into: target)
            await #expect(throws: PeerSessionError.self) { try await second.value }
            let reason = await bob.wait { event -> String? in
                if case .transferFailed(again.id, _, let error) = event, error.code == .transferFailed {
                    return error.reason
                }
                return nil
            }
            #expect(reason?.contains("SHA-256 mismatch") == true, "\(reason ?? "no failure")")
            #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty)

            bob.recorder.clear()
            let third = Task { try await ada.transfers.sendFile(at: url, to: bobID) }
            let last = try #require(await bob.offer())
            try await bob.accept(last, into: target)
            let kept = try #require(await bob.finished())
            _ = try await third.value
            #expect(try Data(contentsOf: kept) == Data(contentsOf: url))
            let startedAt = bob.events.compactMap { event -> UInt64? in
                if case .transferProgress(let progress) = event, progress.id == last.id { return progress.startedAt }
                return nil
            }.first
            #expect(startedAt == 0)
        }
    }
}
