import Crypto
import Foundation
import HuddleTestSupport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

@Suite("Directories: resuming and many small files")
struct DirectoryResumeTests {
    /// The first run is cut short (its sender sends four files and half of a fifth, then cancels); the second
    /// run of the same tree sends exactly the missing bytes.
    @Test func aResumedDirectorySendsOnlyWhatIsMissing() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let bobID = bob.peerID
            let root = try scope.directory().appendingPathComponent("batch")
            let files = Dictionary(uniqueKeysWithValues: (0..<12).map { ("part\($0 / 4)/f\($0).bin", 100_000 + $0) })
            try DirectoryTree.make(files, under: root)
            let target = try scope.directory()
            let scan = try DirectoryScan(of: root)
            let id = TransferID(bytes: Array(repeating: 5, count: 16))
            let offer = DirectoryOffer(id: id, name: "batch", entries: scan.entries)
            try await ada.sendRaw(.directoryOffer(offer))
            let first = try #require(await bob.offer())
            try await bob.accept(first, into: target)
            let fileIndexes = scan.entries.indices.filter { scan.entries[$0].isFile }
            var sentFirst: UInt64 = 0
            for (number, index) in fileIndexes.prefix(5).enumerated() {
                var data = try Data(contentsOf: scan.files[index]!)
                if number == 4 { data = data.prefix(40_000) }
                let chunk = TransferMessage.entryChunk(
                    id,
                    index: UInt32(index),
                    offset: 0,
                    data: ByteBuffer(bytes: data)
                )
                try await ada.sendRaw(chunk)
                sentFirst += UInt64(data.count)
                if number < 4 {
                    let end = TransferMessage.entryEnd(id, index: UInt32(index), sha256: Array(SHA256.hash(data: data)))
                    try await ada.sendRaw(end)
                }
            }
            try await ada.sendRaw(.cancel(id, reason: "test"))
            #expect(await bob.failure()?.contains("test") == true)
            #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).allSatisfy { $0.hasPrefix(".") })

            bob.recorder.clear()
            let sending = Task { try await ada.transfers.sendDirectory(at: root, to: bobID) }
            let second = try #require(await bob.offer())
            #expect(second.contentKey == first.contentKey)  // the same manifest: the staging directory is found again
            try await bob.accept(second, into: target)
            let report = try await sending.value
            let total = UInt64(files.values.reduce(0, +))
            #expect(sentFirst == 4 * 100_000 + 0 + 1 + 2 + 3 + 40_000)
            #expect(report.bytesSent == total - sentFirst)
            #expect(report.filesSent == 8)  // the half file and the seven not started
            let kept = try #require(await bob.finished())
            #expect(try DirectoryTree(kept) == DirectoryTree(root))
            #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == ["batch"])
            let started = bob.events.compactMap { event -> UInt64? in
                if case .transferProgress(let p) = event { return p.startedAt }
                return nil
            }.first
            #expect(started == sentFirst)
        }
    }

    @Test func manySmallFilesGoWithoutARoundTripEach() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let bobID = bob.peerID
            let root = try scope.directory().appendingPathComponent("small")
            let files = Dictionary(uniqueKeysWithValues: (0..<300).map { ("d\($0 % 7)/file\($0)", 10 * 1024) })
            try DirectoryTree.make(files, under: root)
            let target = try scope.directory()
            let sending = Task { try await ada.transfers.sendDirectory(at: root, to: bobID) }
            let offered = try #require(await bob.offer())
            #expect(offered.fileCount == 300 && offered.size == 300 * 10 * 1024)
            try await bob.accept(offered, into: target)
            let report = try await sending.value
            #expect(report.filesSent == 300)
            let kept = try #require(await bob.finished())
            #expect(try DirectoryTree(kept) == DirectoryTree(root))
        }
    }
}
