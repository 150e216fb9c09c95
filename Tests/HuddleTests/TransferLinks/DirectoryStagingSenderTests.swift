import Crypto
import Foundation
import HuddleTestSupport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// A directory's staging is the sending device's: what another peer left there (or in a staging directory of its
/// own) never counts as the real sender's files, and every file kept from an earlier run is checked again against
/// the current sender's SHA-256 before it counts.
@Suite("Directories: staging bound to the sending device")
struct DirectoryStagingSenderTests {
    /// Ada the receiver, with Bob and Mallory both connected to her (each trusted on first use).
    struct Trio {
        let ada: TransferEnd
        let bob: TransferEnd
        let mallory: TransferEnd
        /// Ada as Bob and Mallory see her.
        let adaID: PeerID
        /// Mallory as Ada sees her.
        let malloryID: PeerID
    }

    /// Ada, with Bob and Mallory both connected to her.
    static func trio(on link: TransferLink) async throws -> Trio {
        let (ada, bob) = (link.ada, link.bob)
        let mallory = try await link.add("mallory", connectedTo: [ada])
        return Trio(ada: ada, bob: bob, mallory: mallory, adaID: ada.peerID, malloryID: mallory.peerID)
    }

    /// Where `receiver` stages the directory `offered` by `sender` in `target`.
    static func stagingRoot(
        of offered: IncomingTransfer,
        from sender: PeerID,
        on receiver: TransferEnd,
        in target: URL
    ) throws -> URL {
        let device = try #require(receiver.device(of: sender))
        let name = DirectoryStaging.rootName(
            stem: DirectoryStaging.stem(of: offered.name),
            digest: offered.contentKey,
            sender: device.bytes.hexString
        )
        return target.appendingPathComponent(name)
    }

    /// Mallory offers Ada a directory named like Bob's with the entries of Bob's manifest (and `extra` entries
    /// after them), sends her own bytes for the first file with their true SHA-256, and cancels.
    /// - Returns: Mallory's bytes for the first file.
    static func poison(
        _ trio: Trio,
        copying root: URL,
        extra: [DirectoryEntry] = [],
        into target: URL
    ) async throws -> Data {
        let scan = try DirectoryScan(of: root)
        let id = TransferID.random()
        let offer = DirectoryOffer(id: id, name: root.lastPathComponent, entries: scan.entries + extra)
        try await trio.mallory.sendRaw(.directoryOffer(offer), to: trio.ada)
        let offered = try #require(await trio.ada.offer())
        #expect(offered.peer == trio.malloryID)
        try await trio.ada.accept(offered, into: target)
        let index = try #require(scan.entries.firstIndex { $0.isFile })
        let evil = Data(repeating: 0x66, count: Int(scan.entries[index].size))
        let chunk = TransferMessage.entryChunk(id, index: UInt32(index), offset: 0, data: ByteBuffer(bytes: evil))
        try await trio.mallory.sendRaw(chunk, to: trio.ada)
        let end = TransferMessage.entryEnd(id, index: UInt32(index), sha256: Array(SHA256.hash(data: evil)))
        try await trio.mallory.sendRaw(end, to: trio.ada)
        try await trio.mallory.sendRaw(.cancel(id, reason: "cut"), to: trio.ada)
        #expect(await trio.ada.failure()?.contains("cut") == true)
        trio.ada.recorder.clear()
        return evil
    }

    /// Bob sends `root` to Ada into `target`; returns the directory Ada kept.
    static func realRun(_ trio: Trio, of root: URL, into target: URL) async throws -> URL {
        let sending = Task { try await trio.bob.transfers.sendDirectory(at: root, to: trio.adaID) }
        let offered = try #require(await trio.ada.offer())
        try await trio.ada.accept(offered, into: target)
        _ = try await sending.value
        return try #require(await trio.ada.finished())
    }

    /// The review's case: the same manifest, so the same digest. Mallory's verified file 0 must not become
    /// Bob's file 0.
    @Test
    func anotherPeersRunOfTheSameManifestIsNotTakenAsTheSendersFiles() async throws {
        try await withTransferLink { link, scope in
            let trio = try await Self.trio(on: link)
            let root = try scope.directory().appendingPathComponent("proj")
            try DirectoryTree.make(["file0": 30_000, "file1": 40_000], under: root)
            let target = try scope.directory()
            let evil = try await Self.poison(trio, copying: root, into: target)

            let kept = try await Self.realRun(trio, of: root, into: target)
            let received = try Data(contentsOf: kept.appendingPathComponent("file0"))
            #expect(received == (try Data(contentsOf: root.appendingPathComponent("file0"))))
            #expect(received != evil)
            #expect(try DirectoryTree(kept) == DirectoryTree(root))
        }
    }

    /// A manifest that differs (one more entry): Mallory's staging directory is an earlier run of the name, whose
    /// verified files a changed tree would take by size and resume key. Not when another device sent them.
    @Test
    func anotherPeersStagingIsNotReadFromForTheSendersTree() async throws {
        try await withTransferLink { link, scope in
            let trio = try await Self.trio(on: link)
            let root = try scope.directory().appendingPathComponent("proj")
            try DirectoryTree.make(["file0": 30_000, "file1": 40_000], under: root)
            let target = try scope.directory()
            let extra = DirectoryEntry(path: "zz", kind: .file(size: 10, key: Array(repeating: 1, count: 32)))
            let evil = try await Self.poison(trio, copying: root, extra: [extra], into: target)

            let kept = try await Self.realRun(trio, of: root, into: target)
            let received = try Data(contentsOf: kept.appendingPathComponent("file0"))
            #expect(received == (try Data(contentsOf: root.appendingPathComponent("file0"))))
            #expect(received != evil)
            #expect(try DirectoryTree(kept) == DirectoryTree(root))
        }
    }

    /// A staging directory of the right name whose kept sender is another device (the name carries only 16 hex
    /// digits of it) is not used: the offer is declined and nothing in it is touched.
    @Test
    func aStagingDirectoryKeptForAnotherDeviceIsNotUsed() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let (bobID, adaID) = (bob.peerID, ada.peerID)
            let root = try scope.directory().appendingPathComponent("proj")
            try DirectoryTree.make(["a.bin": 10_000], under: root)
            let target = try scope.directory()
            let sending = Task { try await ada.transfers.sendDirectory(at: root, to: bobID) }
            let offered = try #require(await bob.offer())
            let staging = try Self.stagingRoot(of: offered, from: adaID, on: bob, in: target)
            #expect(mkdir(staging.path, 0o700) == 0)
            let other = String(repeating: "0", count: 64)
            try Data(other.utf8).write(to: staging.appendingPathComponent("sender"))
            await #expect(throws: PeerSessionError.self) { try await bob.accept(offered, into: target) }
            let result = try #require(await result(of: sending))
            #expect(declined(result), "the sender's call ended with \(result)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: staging.path) == ["sender"])
            #expect(try String(contentsOf: staging.appendingPathComponent("sender"), encoding: .utf8) == other)
        }
    }

    /// A file verified in an earlier run of the same sender is checked again against the sender's SHA-256 of
    /// this run (the sender hashes it, sends no bytes of it): one whose bytes changed in the staging directory
    /// since fails the run instead of being kept, and the run after sends it again.
    @Test
    func aFileKeptFromAnEarlierRunIsCheckedAgainstTheSendersHash() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let bobID = bob.peerID
            let root = try scope.directory().appendingPathComponent("album")
            try DirectoryTree.make(["a.bin": 30_000, "b.bin": 40_000], under: root)
            let target = try scope.directory()
            _ = try await DirectoryEarlierRunTests.interruptedRun(
                of: root,
                whole: [0],
                from: ada,
                to: bob,
                bobID,
                into: target
            )
            let staging = try #require(
                try FileManager.default.contentsOfDirectory(atPath: target.path).first { $0.hasPrefix(".album.") }
            )
            let verified = target.appendingPathComponent(staging).appendingPathComponent("tree/a.bin")
            var bytes = try Data(contentsOf: verified)
            bytes[100] ^= 0xFF
            try bytes.write(to: verified)

            let retry = Task { try await ada.transfers.sendDirectory(at: root, to: bobID) }
            try await bob.accept(try #require(await bob.offer()), into: target)
            await #expect(throws: PeerSessionError.self) { try await retry.value }
            #expect(await bob.failure() == "SHA-256 mismatch: a.bin does not match what was sent")
            #expect(bob.events.allSatisfy { if case .transferFinished = $0 { false } else { true } })

            bob.recorder.clear()
            let sending = Task { try await ada.transfers.sendDirectory(at: root, to: bobID) }
            try await bob.accept(try #require(await bob.offer()), into: target)
            let report = try await sending.value
            #expect(report.bytesSent == 30_000 + 40_000)
            #expect(try DirectoryTree(try #require(await bob.finished())) == DirectoryTree(root))
        }
    }
}
