import Crypto
import Foundation
import HuddleTestSupport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

@Suite("Directory transfers on loopback", .timeLimit(.minutes(2)))
struct DirectoryTransferTests {
    static let files = [
        "notes.txt": 1000, "2024/a.png": 300_000, "2024/b.bin": 2 * 1024 * 1024 + 7, "2024/deep/er/c.dat": 70_000,
        "2024/deep/zero": 0, "Ünïcode name (1).txt": 12,
    ]
    static var total: UInt64 { UInt64(files.values.reduce(0, +)) }

    /// A tree of ``files`` plus an empty directory and a link pointing out of it, in a fresh scratch directory of
    /// `scope`.
    static func photos(in scope: TestScope) throws -> URL {
        let root = try scope.directory().appendingPathComponent("photos")
        try DirectoryTree.make(files, under: root)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("empty/inner"),
            withIntermediateDirectories: true
        )
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("link").path,
            withDestinationPath: "/etc/hostname"
        )
        return root
    }

    @Test func aNestedTreeArrivesIdenticalWithItsCountsAndWithoutLinks() async throws {
        try await withTestScope { scope in
            let (ada, bob, bobID, _) = try await scope.connectedPair()
            let source = try Self.photos(in: scope)
            let target = try scope.directory()
            let sending = Task { try await ada.session.sendDirectory(at: source, to: bobID) }
            let offered = try #require(await bob.offer())
            #expect(offered.isDirectory && offered.name == "photos")
            #expect(offered.fileCount == 6 && offered.size == Self.total)
            try await bob.session.acceptTransfer(offered, into: target)
            let report = try await sending.value
            let kept = try #require(await bob.finished())
            #expect(kept.path == target.appendingPathComponent("photos").path)
            var expected = try DirectoryTree(source)
            expected.entries["link"] = nil  // links are never sent
            #expect(try DirectoryTree(kept) == expected)
            #expect(expected.entries["empty/inner"] == "dir" && expected.entries.count == 6 + 5)
            #expect(report.fileCount == 6 && report.filesSent == 5)  // an empty file needs no data: made on accept
            #expect(report.totalSize == Self.total && report.bytesSent == Self.total)
            #expect(report.skipped == ["link"])
            // The staging directory is gone: only the tree is left.
            #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == ["photos"])
            let last = ada.events.compactMap { event -> TransferProgress? in
                if case .transferProgress(let p) = event, p.direction == .sending { return p }
                return nil
            }.last
            #expect(last?.completed == Self.total && last?.file?.filesCompleted == 6 && last?.file?.fileCount == 6)
            let received = bob.events.compactMap { event -> String? in
                if case .transferProgress(let p) = event, let file = p.file, file.completed == file.total {
                    return file.path
                }
                return nil
            }
            // Each file reported once, when verified (the empty file was complete at once).
            #expect(Set(received) == Set(Self.files.keys).subtracting(["2024/deep/zero"]))

            // The same tree again: a new name, nothing overwritten.
            let again = Task { try await ada.session.sendDirectory(at: source, to: bobID) }
            bob.clear()
            let second = try #require(await bob.offer())
            try await bob.session.acceptTransfer(second, into: target)
            _ = try await again.value
            let keptAgain = try #require(await bob.finished())
            #expect(keptAgain.lastPathComponent == "photos (2)")
            #expect(try DirectoryTree(keptAgain) == expected && DirectoryTree(kept) == expected)
        }
    }

    /// The first run is cut short (its sender sends four files and half of a fifth, then cancels); the second
    /// run of the same tree sends exactly the missing bytes.
    @Test func aResumedDirectorySendsOnlyWhatIsMissing() async throws {
        try await withTestScope { scope in
            let (ada, bob, bobID, _) = try await scope.connectedPair()
            let root = try scope.directory().appendingPathComponent("batch")
            let files = Dictionary(uniqueKeysWithValues: (0..<12).map { ("part\($0 / 4)/f\($0).bin", 100_000 + $0) })
            try DirectoryTree.make(files, under: root)
            let target = try scope.directory()
            let scan = try DirectoryScan(of: root)
            let id = TransferID(bytes: Array(repeating: 5, count: 16))
            let offer = DirectoryOffer(id: id, name: "batch", entries: scan.entries)
            try await ada.session.sendResource(.directoryOffer(offer), to: bobID)
            let first = try #require(await bob.offer())
            try await bob.session.acceptTransfer(first, into: target)
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
                try await ada.session.sendResource(chunk, to: bobID)
                sentFirst += UInt64(data.count)
                if number < 4 {
                    let end = TransferMessage.entryEnd(id, index: UInt32(index), sha256: Array(SHA256.hash(data: data)))
                    try await ada.session.sendResource(end, to: bobID)
                }
            }
            try await ada.session.sendResource(.cancel(id, reason: "test"), to: bobID)
            #expect(await bob.failure()?.contains("test") == true)
            #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).allSatisfy { $0.hasPrefix(".") })

            bob.clear()
            let sending = Task { try await ada.session.sendDirectory(at: root, to: bobID) }
            let second = try #require(await bob.offer())
            #expect(second.contentKey == first.contentKey)  // the same manifest: the staging directory is found again
            try await bob.session.acceptTransfer(second, into: target)
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
        try await withTestScope { scope in
            let (ada, bob, bobID, _) = try await scope.connectedPair()
            let root = try scope.directory().appendingPathComponent("small")
            let files = Dictionary(uniqueKeysWithValues: (0..<300).map { ("d\($0 % 7)/file\($0)", 10 * 1024) })
            try DirectoryTree.make(files, under: root)
            let target = try scope.directory()
            let sending = Task { try await ada.session.sendDirectory(at: root, to: bobID) }
            let offered = try #require(await bob.offer())
            #expect(offered.fileCount == 300 && offered.size == 300 * 10 * 1024)
            try await bob.session.acceptTransfer(offered, into: target)
            let report = try await sending.value
            #expect(report.filesSent == 300)
            let kept = try #require(await bob.finished())
            #expect(try DirectoryTree(kept) == DirectoryTree(root))
        }
    }
}
