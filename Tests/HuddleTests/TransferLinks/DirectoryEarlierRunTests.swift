import Crypto
import Foundation
import HuddleTestSupport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// What a receiver takes from an earlier, interrupted offer of a directory of the same name: its verified files
/// whose resume keys the new offer lists again — and nothing from a staging directory that is not its own.
@Suite("Directories: files kept from an earlier run")
struct DirectoryEarlierRunTests {
    /// A first run of `root` whose sender sends the files at `whole` (manifest order among files) with their
    /// ENTRY-ENDs, then is cut.
    static func interruptedRun(
        of root: URL,
        whole: [Int],
        from ada: TransferEnd,
        to bob: TransferEnd,
        _ bobID: PeerID,
        into target: URL
    ) async throws -> IncomingTransfer {
        let scan = try DirectoryScan(of: root)
        let id = TransferID.random()
        let offer = DirectoryOffer(id: id, name: root.lastPathComponent, entries: scan.entries)
        try await ada.sendRaw(.directoryOffer(offer))
        let offered = try #require(await bob.offer())
        try await bob.accept(offered, into: target)
        let files = scan.entries.indices.filter { scan.entries[$0].isFile }
        for number in whole {
            let index = files[number]
            let data = try Data(contentsOf: try #require(scan.files[index]))
            try await ada.sendRaw(
                .entryChunk(id, index: UInt32(index), offset: 0, data: ByteBuffer(bytes: data))
            )
            try await ada.sendRaw(
                .entryEnd(id, index: UInt32(index), sha256: Array(SHA256.hash(data: data)))
            )
        }
        try await ada.sendRaw(.cancel(id, reason: "cut"))
        #expect(await bob.failure()?.contains("cut") == true)
        bob.recorder.clear()
        return offered
    }

    /// Two files verified, then the run is cut; one of them is edited before the tree is sent again. The new
    /// manifest differs (a new staging directory), yet the unchanged verified file is not sent again: only the
    /// edited one and the one never sent.
    @Test func aTreeChangedBetweenRunsSendsOnlyWhatChanged() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let bobID = bob.peerID
            let root = try scope.directory().appendingPathComponent("album")
            try DirectoryTree.make(["a.bin": 30_000, "b.bin": 40_000, "c.bin": 50_000], under: root)
            let target = try scope.directory()
            let first = try await Self.interruptedRun(of: root, whole: [0, 1], from: ada, to: bob, bobID, into: target)
            let edited = root.appendingPathComponent("b.bin")
            let handle = try FileHandle(forUpdating: edited)
            try handle.seekToEnd()
            try handle.write(contentsOf: Array(repeating: 7, count: 1000))
            try handle.close()

            let sending = Task { try await ada.transfers.sendDirectory(at: root, to: bobID) }
            let second = try #require(await bob.offer())
            #expect(second.contentKey != first.contentKey)
            try await bob.accept(second, into: target)
            let report = try await sending.value
            #expect(report.filesSent == 2)
            #expect(report.bytesSent == 41_000 + 50_000)
            let kept = try #require(await bob.finished())
            #expect(try DirectoryTree(kept) == DirectoryTree(root))
            // The earlier run's staging directory went with the finished tree.
            #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == ["album"])
        }
    }

    /// An earlier staging directory someone else could have written in is not read from: its verified file is
    /// sent again.
    @Test func anEarlierStagingDirectoryThatIsNotPrivateIsNotReadFrom() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let (bobID, adaID) = (bob.peerID, ada.peerID)
            let root = try scope.directory().appendingPathComponent("shared")
            try DirectoryTree.make(["a.bin": 20_000, "b.bin": 20_000], under: root)
            let target = try scope.directory()
            let first = try await Self.interruptedRun(of: root, whole: [0], from: ada, to: bob, bobID, into: target)
            let earlier = try DirectoryStagingSenderTests.stagingRoot(of: first, from: adaID, on: bob, in: target)
            #expect(chmod(earlier.path, 0o755) == 0)
            let touched = root.appendingPathComponent("b.bin")
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -60)],
                ofItemAtPath: touched.path
            )

            let sending = Task { try await ada.transfers.sendDirectory(at: root, to: bobID) }
            let second = try #require(await bob.offer())
            #expect(second.contentKey != first.contentKey)
            try await bob.accept(second, into: target)
            let report = try await sending.value
            #expect(report.filesSent == 2 && report.bytesSent == 40_000)  // a.bin again
            #expect(try DirectoryTree(try #require(await bob.finished())) == DirectoryTree(root))
            // Not provably this user's own: left alone.
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: target.path).sorted()
                    == [earlier.lastPathComponent, "shared"].sorted()
            )
        }
    }
}
