import Crypto
import Foundation
import HuddleTestSupport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// A directory's files are offered by resume key and hashed while they are sent: each file's SHA-256 follows its
/// last chunk (ENTRY-END), and nothing is read whole before the offer.
@Suite("Directories hashed while sending")
struct DirectoryHashWhileSendingTests {
    /// The manifest names each file by its ``ResumeKey`` (size, modification time, first and last MiB), which
    /// a scan makes without reading the middle of a file.
    @Test func theManifestCarriesEachFilesResumeKey() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let root = scratch.appending("keys")
        try DirectoryTree.make(["a.bin": 3 << 20, "sub/b.bin": 10], under: root)
        let scan = try DirectoryScan(of: root)
        let files = scan.entries.indices.filter { scan.entries[$0].isFile }
        #expect(files.count == 2)
        for index in files {
            let (_, key) = try ResumeKey.of(file: try #require(scan.files[index]))
            #expect(scan.entries[index].kind == .file(size: scan.entries[index].size, key: key))
        }
    }

    /// A first run of `root` that sends all of its first file — as `bytes` make it from the file — and is then
    /// cut, without that file's ENTRY-END: the receiver keeps a whole part it could not check.
    /// - Returns: the first file's data as the receiver has it.
    static func leaveWholePart(
        of root: URL,
        from ada: TransferEnd,
        to bob: TransferEnd,
        _ bobID: PeerID,
        into target: URL,
        bytes: (Data) -> Data = { $0 }
    ) async throws -> Data {
        let scan = try DirectoryScan(of: root)
        let id = TransferID.random()
        try await ada.sendRaw(
            .directoryOffer(DirectoryOffer(id: id, name: root.lastPathComponent, entries: scan.entries))
        )
        try await bob.accept(try #require(await bob.offer()), into: target)
        let first = try #require(scan.entries.indices.first { scan.entries[$0].isFile })
        let data = bytes(try Data(contentsOf: try #require(scan.files[first])))
        let chunk = TransferMessage.entryChunk(id, index: UInt32(first), offset: 0, data: ByteBuffer(bytes: data))
        try await ada.sendRaw(chunk)
        try await ada.sendRaw(.cancel(id, reason: "cut"))
        #expect(await bob.failure()?.contains("cut") == true)
        bob.recorder.clear()
        return data
    }

    /// Sends `root` with `sendDirectory`, has it accepted into `target`, and checks that it arrived identical.
    static func sendAndCheck(
        _ root: URL,
        from ada: TransferEnd,
        to bob: TransferEnd,
        _ bobID: PeerID,
        into target: URL
    ) async throws -> DirectoryTransferReport {
        let sending = Task { try await ada.transfers.sendDirectory(at: root, to: bobID) }
        try await bob.accept(try #require(await bob.offer()), into: target)
        let report = try await sending.value
        let kept = try #require(await bob.finished())
        #expect(try DirectoryTree(kept) == DirectoryTree(root))
        return report
    }

    /// A first run leaves one file whole in its part but without its ENTRY-END (the connection ended between
    /// the two): the next run asks for it at its end, and the sender sends no bytes of it, only its SHA-256.
    @Test func aWholePartFromAnEarlierRunNeedsOnlyItsEntryEnd() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let bobID = bob.peerID
            let root = try scope.directory().appendingPathComponent("whole")
            let files = ["a.bin": 70_000, "b.bin": 80_000, "c.bin": 90_000]
            try DirectoryTree.make(files, under: root)
            let target = try scope.directory()
            let data = try await Self.leaveWholePart(of: root, from: ada, to: bob, bobID, into: target)

            let report = try await Self.sendAndCheck(root, from: ada, to: bob, bobID, into: target)
            #expect(report.filesSent == 2)  // the whole part was asked for too, at its end, but sent no bytes
            #expect(report.bytesSent == UInt64(files.values.reduce(0, +) - data.count))
        }
    }

    /// A whole part whose bytes are not the file's any more fails its SHA-256 check and is removed, so the run
    /// after sends that file whole.
    @Test func aDamagedWholePartIsCaughtByItsEntryEndAndSentAgainNextTime() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let bobID = bob.peerID
            let root = try scope.directory().appendingPathComponent("damaged")
            try DirectoryTree.make(["a.bin": 50_000, "b.bin": 60_000], under: root)
            let target = try scope.directory()
            _ = try await Self.leaveWholePart(of: root, from: ada, to: bob, bobID, into: target) { data in
                var wrong = data
                wrong[100] ^= 0xFF
                return wrong
            }

            let retry = Task { try await ada.transfers.sendDirectory(at: root, to: bobID) }
            try await bob.accept(try #require(await bob.offer()), into: target)
            await #expect(throws: PeerSessionError.self) { try await retry.value }
            #expect(await bob.failure() == "SHA-256 mismatch: a.bin does not match what was sent")

            bob.recorder.clear()
            let report = try await Self.sendAndCheck(root, from: ada, to: bob, bobID, into: target)
            #expect(report.filesSent == 2 && report.bytesSent == 110_000)  // the damaged file again, whole
        }
    }

    /// A file that changes between the scan and its turn to be sent fails the transfer on both sides with a
    /// typed error; the receiver's tree never gets it.
    @Test func aFileChangedAfterTheOfferFailsOnBothSides() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let bobID = bob.peerID
            let root = try scope.directory().appendingPathComponent("changing")
            try DirectoryTree.make(["a.bin": 10_000, "b.bin": 20_000], under: root)
            let target = try scope.directory()
            let sending = Task { try await ada.transfers.sendDirectory(at: root, to: bobID) }
            let offered = try #require(await bob.offer())
            let handle = try FileHandle(forUpdating: root.appendingPathComponent("b.bin"))
            try handle.seekToEnd()
            try handle.write(contentsOf: [1])
            try handle.close()
            try await bob.accept(offered, into: target)
            let error = await #expect(throws: PeerSessionError.self) { try await sending.value }
            #expect(error == .transferFailed("b.bin changed while being sent"))
            let reason = await bob.wait { event -> String? in
                if case .transferFailed(offered.id, _, let error) = event, error.code == .transferFailed {
                    return error.reason
                }
                return nil
            }
            #expect(reason?.contains("b.bin changed while being sent") == true, "\(reason ?? "no failure")")
            #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).allSatisfy { $0.hasPrefix(".") })
        }
    }
}
