import Crypto
import Foundation
import HuddleTestSupport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// Directory offers that lie, sent from raw transfer messages: refused with a reason, and nothing is ever written
/// outside the receiver's target directory.
@Suite("Hostile directory offers")
struct HostileDirectoryTests {
    /// A manifest entry for `data` (its key: any 32 bytes, here its SHA-256).
    static func file(_ path: String, _ data: [UInt8]) -> DirectoryEntry {
        DirectoryEntry(path: path, kind: .file(size: UInt64(data.count), key: Array(SHA256.hash(data: data))))
    }

    static func entryEnd(_ id: TransferID, _ index: Int, of data: [UInt8]) -> TransferMessage {
        .entryEnd(id, index: UInt32(index), sha256: Array(SHA256.hash(data: data)))
    }

    /// A target directory inside a fresh parent, so a test can check the parent too.
    static func target(in scope: TestScope) throws -> (parent: URL, target: URL) {
        let parent = try scope.directory()
        let target = parent.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        return (parent, target)
    }

    static func names(in url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    @Test func manifestsWithBadPathsAreDeclinedBeforeAnyoneIsAsked() async throws {
        try await withTransferLink { link, scope in
            let (mallory, bob) = (link.ada, link.bob)
            let (parent, _) = try Self.target(in: scope)
            let data: [UInt8] = [1, 2, 3]
            let hostile: [(entries: [DirectoryEntry], reason: String)] = [
                ([Self.file("../escape", data)], "the name . or .."),
                ([Self.file("ok/../../escape", data)], "the name . or .."),
                ([Self.file("/tmp/absolute", data)], "is an absolute path"),
                ([Self.file("ctl\u{1B}[2J", data)], "control"),
                ([Self.file("Same", data), Self.file("same", data)], "appears twice"),
                ([Self.file("f", data), Self.file("f/under", data)], "lies below a file"),
                ([Self.file("dir/LPT1", data)], "reserved device name"),
                ((0..<10_001).map { Self.file("f\($0)", data) }, "10001 entries (at most 10000)"),
            ]
            for (number, (entries, reason)) in hostile.enumerated() {
                let id = TransferID(bytes: Array(repeating: UInt8(number), count: 16))
                bob.recorder.clear()
                let offer = DirectoryOffer(id: id, name: "evil", entries: entries)
                try await mallory.sendRaw(.directoryOffer(offer))
                let refused = await bob.wait { event -> String? in
                    if case .peerError(_, let error) = event, error.code == .transferFailed { return error.reason }
                    return nil
                }
                #expect(refused?.contains(reason) == true, "\(refused ?? "no refusal") for \(reason)")
                #expect(bob.events.allSatisfy { if case .transferOffered = $0 { false } else { true } })
            }
            #expect(try Self.names(in: parent) == ["inbox"])
            #expect(try Self.names(in: parent.appendingPathComponent("inbox")).isEmpty)
        }
    }

    @Test func aFileThatFailsItsCheckNeverGetsItsName() async throws {
        try await withTransferLink { link, scope in
            let (mallory, bob) = (link.ada, link.bob)
            let (parent, target) = try Self.target(in: scope)
            let good: [UInt8] = Array(repeating: 7, count: 5000)
            let promised: [UInt8] = Array(repeating: 8, count: 5000)
            let id = TransferID(bytes: Array(repeating: 42, count: 16))
            let offer = DirectoryOffer(
                id: id,
                name: "tree",
                entries: [Self.file("a.txt", good), Self.file("b.txt", promised)]
            )
            try await mallory.sendRaw(.directoryOffer(offer))
            let offered = try #require(await bob.offer())
            try await bob.accept(offered, into: target)
            // b.txt's bytes are not the ones its ENTRY-END's SHA-256 is of.
            for (index, (data, claimed)) in [(good, good), (Array(repeating: 9, count: 5000), promised)].enumerated() {
                let chunk = TransferMessage.entryChunk(
                    id,
                    index: UInt32(index),
                    offset: 0,
                    data: ByteBuffer(bytes: data)
                )
                try await mallory.sendRaw(chunk)
                try await mallory.sendRaw(Self.entryEnd(id, index, of: claimed))
            }
            try await mallory.sendRaw(.end(id, sha256: nil))
            #expect(await bob.failure() == "SHA-256 mismatch: b.txt does not match what was sent")
            #expect(bob.events.allSatisfy { if case .transferFinished = $0 { false } else { true } })
            // Only the hidden staging directory; in it the verified file, and no trace of the bad one.
            let staging = try #require(try Self.names(in: target).first)
            #expect(
                try Self.names(in: target).count == 1 && staging.hasPrefix(".tree.")
                    && staging.hasSuffix(".huddle-partial")
            )
            let root = target.appendingPathComponent(staging)
            #expect(try Self.names(in: root.appendingPathComponent("tree")) == ["a.txt"])
            #expect(try Self.names(in: root.appendingPathComponent("parts")).isEmpty)
            #expect(try Self.names(in: parent) == ["inbox"])
        }
    }

    @Test func chunksOutsideWhatWasAskedForFailTheTransfer() async throws {
        try await withTransferLink { link, scope in
            let (mallory, bob) = (link.ada, link.bob)
            let (parent, target) = try Self.target(in: scope)
            let data: [UInt8] = Array(repeating: 1, count: 100)
            let cases: [(index: UInt32, bytes: Int, reason: String)] = [
                (0, 100, "file 0 was not asked for"),  // a directory entry
                (7, 100, "file 7 was not asked for"),  // beyond the manifest
                (1, 150, "x/f: chunk at 0 of 150 bytes does not fit (have 0)"),  // more than declared
                (1, 60, "ended with 1 file(s) incomplete"),  // less than declared, then END
                (1, -60, "x/f ended at 60 of 100 bytes"),  // less than declared, then its ENTRY-END
                (1, -100, "ended with 1 file(s) incomplete"),  // all of it, then END without its ENTRY-END
            ]
            for (number, test) in cases.enumerated() {
                let id = TransferID(bytes: Array(repeating: UInt8(100 + number), count: 16))
                let entries = [DirectoryEntry(path: "x", kind: .directory), Self.file("x/f", data)]
                bob.recorder.clear()
                try await mallory.sendRaw(
                    .directoryOffer(DirectoryOffer(id: id, name: "t\(number)", entries: entries))
                )
                let offered = try #require(await bob.offer())
                try await bob.accept(offered, into: target)
                // A negative count: that many bytes, then ENTRY-END (for fewer than declared) or END (for all).
                let sent = Array(repeating: UInt8(1), count: abs(test.bytes))
                let chunk = TransferMessage.entryChunk(id, index: test.index, offset: 0, data: ByteBuffer(bytes: sent))
                try await mallory.sendRaw(chunk)
                if test.bytes < 0, sent.count < 100 {
                    try await mallory.sendRaw(Self.entryEnd(id, Int(test.index), of: sent))
                } else if test.bytes < 100 {
                    try await mallory.sendRaw(.end(id, sha256: nil))
                }
                #expect(await bob.failure() == test.reason)
            }
            #expect(try Self.names(in: target).allSatisfy { $0.hasPrefix(".t") && $0.hasSuffix(".huddle-partial") })
            #expect(try Self.names(in: parent) == ["inbox"])
        }
    }

    /// Links planted in a staging directory (by anyone who can write in the target) are refused, not followed.
    @Test func linksInTheStagingDirectoryAreNeverFollowed() async throws {
        try await withTransferLink { link, scope in
            let (mallory, bob) = (link.ada, link.bob)
            let malloryID = mallory.peerID
            let (parent, target) = try Self.target(in: scope)
            let outside = parent.appendingPathComponent("outside")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
            let victim = outside.appendingPathComponent("victim")
            try Data("keep me".utf8).write(to: victim)
            let data: [UInt8] = Array(repeating: 4, count: 300)
            let plants: [(String, String)] = [("tree/sub", outside.path), ("parts/2", victim.path)]
            for (number, (place, destination)) in plants.enumerated() {
                let id = TransferID(bytes: Array(repeating: UInt8(200 + number), count: 16))
                let entries = [
                    DirectoryEntry(path: "sub", kind: .directory), Self.file("sub/a", data), Self.file("sub/b", data),
                ]
                bob.recorder.clear()
                let offer = DirectoryOffer(id: id, name: "planted\(number)", entries: entries)
                try await mallory.sendRaw(.directoryOffer(offer))
                let offered = try #require(await bob.offer())
                let staging = try DirectoryStagingSenderTests.stagingRoot(
                    of: offered,
                    from: malloryID,
                    on: bob,
                    in: target
                )
                for directory in ["tree", "parts"] {
                    try FileManager.default.createDirectory(
                        at: staging.appendingPathComponent(directory),
                        withIntermediateDirectories: true
                    )
                }
                // Private, as this user's own staging directory would be: only the links inside are wrong.
                #expect(chmod(staging.path, 0o700) == 0)
                if place == "parts/2" {
                    try FileManager.default.createDirectory(
                        at: staging.appendingPathComponent("tree/sub"),
                        withIntermediateDirectories: true
                    )
                }
                try FileManager.default.createSymbolicLink(
                    atPath: staging.appendingPathComponent(place).path,
                    withDestinationPath: destination
                )
                await #expect(throws: PeerSessionError.self) {
                    try await bob.accept(offered, into: target)
                }
                for (index, bytes) in [(1, data), (2, data)] {
                    let chunk = TransferMessage.entryChunk(
                        id,
                        index: UInt32(index),
                        offset: 0,
                        data: ByteBuffer(bytes: bytes)
                    )
                    try await mallory.sendRaw(chunk)
                }
                try await mallory.sendRaw(.end(id, sha256: nil))
            }
            let finished = bob.events.count { if case .transferFinished = $0 { true } else { false } }
            #expect(finished == 0)
            #expect(try Self.names(in: outside) == ["victim"])
            #expect(try Data(contentsOf: victim) == Data("keep me".utf8))
            #expect(try Self.names(in: parent) == ["inbox", "outside"])
        }
    }
}
