import Crypto
import Foundation
import HuddleTestSupport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Receive directories other local users can write in, and files swapped on the sender between its scan and
/// the send: nothing of ours is written through a name someone else planted, and nothing but the scanned file
/// is sent.
@Suite("Transfers: shared receive directories and swapped files")
struct SharedReceiveDirectoryTests {
    static let victimBytes = Data("precious, not to be overwritten\n".utf8)

    /// A file of someone else's (in the test, ours) that a planted name points at.
    static func victim(in scope: TestScope) throws -> URL {
        let url = try scope.directory().appendingPathComponent("victim.txt")
        try victimBytes.write(to: url)
        return url
    }

    /// Offers `payload` as `shot.bin` from Ada to Bob and accepts it into `target`, where `plant` put something
    /// at the partial file's name first. The accept must be refused, and so the send.
    static func refusedOffer(
        into target: URL,
        on pair: TransferLink,
        in scope: TestScope,
        plant: (URL) throws -> Void
    ) async throws {
        let (ada, bob) = (pair.ada, pair.bob)
        let bobID = bob.peerID
        let payload = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let partial = target.appendingPathComponent(
            ".shot.bin.\(ResumeKey.of(data: payload).hexString.prefix(16)).huddle-partial"
        )
        try plant(partial)
        let sending = Task { try await ada.transfers.sendData(payload, named: "shot.bin", to: bobID) }
        let offered = try #require(await bob.offer())
        await #expect(throws: PeerSessionError.self) { try await bob.accept(offered, into: target) }
        let result = try #require(await result(of: sending))
        #expect(throws: PeerSessionError.self) { try result.get() }
        #expect(bob.events.allSatisfy { if case .transferFinished = $0 { false } else { true } })
    }

    @Test
    func aSymlinkPlantedAtThePartialNameIsRefusedAndItsTargetUntouched() async throws {
        try await withTransferLink { pair, scope in
            let victim = try Self.victim(in: scope)
            let target = try scope.directory()
            try await Self.refusedOffer(into: target, on: pair, in: scope) { partial in
                try FileManager.default.createSymbolicLink(at: partial, withDestinationURL: victim)
            }
            #expect(try Data(contentsOf: victim) == Self.victimBytes)
        }
    }

    /// A hard link to a file of ours (where the system lets others make one) is not a partial file either.
    @Test
    func aHardLinkPlantedAtThePartialNameIsRefusedAndItsTargetUntouched() async throws {
        try await withTransferLink { pair, scope in
            let victim = try Self.victim(in: scope)
            let target = try scope.directory()
            try await Self.refusedOffer(into: target, on: pair, in: scope) { partial in
                #expect(link(victim.path, partial.path) == 0)
            }
            #expect(try Data(contentsOf: victim) == Self.victimBytes)
        }
    }

    /// The staging directory an offer of `root` from Ada gets in `target` is made beforehand by `plant`; the
    /// accept must be refused, the sender told, and nothing written in the planted directory.
    static func refusedStaging(on pair: TransferLink, in scope: TestScope, plant: (URL) throws -> Void) async throws {
        let (ada, bob) = (pair.ada, pair.bob)
        let (bobID, adaID) = (bob.peerID, ada.peerID)
        let root = try scope.directory().appendingPathComponent("proj")
        try DirectoryTree.make(["a.bin": 10_000, "sub/b.bin": 20_000], under: root)
        let target = try scope.directory()
        let sending = Task { try await ada.transfers.sendDirectory(at: root, to: bobID) }
        let offered = try #require(await bob.offer())
        let staging = try DirectoryStagingSenderTests.stagingRoot(of: offered, from: adaID, on: bob, in: target)
        #expect(mkdir(staging.path, 0o700) == 0)
        try plant(staging)
        await #expect(throws: PeerSessionError.self) { try await bob.accept(offered, into: target) }
        let result = try #require(await result(of: sending))
        #expect(declined(result), "the sender's call ended with \(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: staging.path).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == [staging.lastPathComponent])
    }

    @Test
    func aStagingDirectoryOthersMayWriteInIsRefused() async throws {
        try await withTransferLink { pair, scope in
            try await Self.refusedStaging(on: pair, in: scope) { staging in
                #expect(chmod(staging.path, 0o777) == 0)
            }
        }
    }

    /// Needs root to give the directory away; skipped otherwise, except on CI, where it must run.
    @Test(
        .enabled(if: geteuid() == 0 || ProcessInfo.processInfo.environment["CI"] != nil)
    )
    func aStagingDirectoryOfAnotherUserIsRefused() async throws {
        try await withTransferLink { pair, scope in
            try #require(geteuid() == 0, "giving a directory to another user needs root")
            try await Self.refusedStaging(on: pair, in: scope) { staging in
                #expect(chown(staging.path, 4321, 4321) == 0)
            }
        }
    }

    /// A file of the scanned tree swapped for a link to another file of the same size and modification time,
    /// after the offer and before its turn: it is not sent, and the transfer fails on both sides.
    @Test
    func aFileSwappedForASymlinkAfterTheScanIsNotSent() async throws {
        try await withTransferLink { pair, scope in
            let (ada, bob) = (pair.ada, pair.bob)
            let bobID = bob.peerID
            let root = try scope.directory().appendingPathComponent("proj")
            try DirectoryTree.make(["a.bin": 20_000, "b.bin": 20_000], under: root)
            let file = root.appendingPathComponent("a.bin")
            let secret = try TransferTests.file(20_000, named: "secret.bin", in: scope.directory(), seed: 99)
            let when = Date(timeIntervalSince1970: 1_700_000_000)
            for url in [file, secret] {
                try FileManager.default.setAttributes([.modificationDate: when], ofItemAtPath: url.path)
            }
            #expect(try FileStamp.of(file) == FileStamp.of(secret))
            let target = try scope.directory()

            let sending = Task { try await ada.transfers.sendDirectory(at: root, to: bobID) }
            let offered = try #require(await bob.offer())
            try FileManager.default.moveItem(
                at: file,
                to: root.deletingLastPathComponent().appendingPathComponent("old")
            )
            try FileManager.default.createSymbolicLink(at: file, withDestinationURL: secret)
            try await bob.accept(offered, into: target)

            let result = try #require(await result(of: sending))
            #expect(throws: PeerSessionError.self) { try result.get() }
            #expect(await bob.failure() != nil)
            #expect(bob.events.allSatisfy { if case .transferFinished = $0 { false } else { true } })
            let secretBytes = try Data(contentsOf: secret)
            let enumerator = try #require(FileManager.default.enumerator(atPath: target.path))
            for case let path as String in enumerator {
                let url = target.appendingPathComponent(path)
                guard DirectoryScan.kind(of: url.path) == S_IFREG else { continue }
                #expect(try Data(contentsOf: url) != secretBytes, "the swapped-in file reached \(path)")
            }
        }
    }

    /// The same for a single file: one put in its place (by rename) after the offer, with the same size and
    /// modification time, is not sent.
    @Test
    func aSingleFileReplacedAfterTheOfferIsNotSent() async throws {
        try await withTransferLink { pair, scope in
            let (ada, bob) = (pair.ada, pair.bob)
            let bobID = bob.peerID
            let folder = try scope.directory()
            let file = try TransferTests.file(20_000, named: "report.pdf", in: folder, seed: 5)
            let other = try TransferTests.file(20_000, named: "other.pdf", in: scope.directory(), seed: 6)
            let when = Date(timeIntervalSince1970: 1_700_000_000)
            for url in [file, other] {
                try FileManager.default.setAttributes([.modificationDate: when], ofItemAtPath: url.path)
            }
            let target = try scope.directory()

            let sending = Task { try await ada.transfers.sendFile(at: file, to: bobID) }
            let offered = try #require(await bob.offer())
            #expect(rename(other.path, file.path) == 0)
            try await bob.accept(offered, into: target)
            let result = try #require(await result(of: sending))
            #expect(throws: PeerSessionError.self) { try result.get() }
            #expect(bob.events.allSatisfy { if case .transferFinished = $0 { false } else { true } })
        }
    }
}
