import Crypto
import Foundation
import HuddleTestSupport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// Between two real sessions on a `MemoryNetwork` (TLS, framing and the session's transfer wiring as on a socket).
@Suite("Directory transfers between sessions", .timeLimit(.minutes(1)))
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
            let (ada, bob, bobID, _) = try await scope.connectedPair(configure: MemoryNetwork().configure)
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
            // Cleared before the send starts: its offer may arrive at once.
            bob.clear()
            let again = Task { try await ada.session.sendDirectory(at: source, to: bobID) }
            let second = try #require(await bob.offer())
            try await bob.session.acceptTransfer(second, into: target)
            _ = try await again.value
            let keptAgain = try #require(await bob.finished())
            #expect(keptAgain.lastPathComponent == "photos (2)")
            #expect(try DirectoryTree(keptAgain) == expected && DirectoryTree(kept) == expected)
        }
    }

}
