import Crypto
import Foundation
import HuddleTestSupport
import Testing

@testable import HuddleLocalSend

/// The SHA-256 an offer carries: right across the reader's slices, worked out once per version of a file, and
/// never kept when it failed or was dropped.
@Suite struct LocalSendFileDigestsTests {
    /// A file of `size` bytes of a fixed pattern (seeded), with the modification time `modified`.
    func write(_ url: URL, size: Int, seed: UInt8, modified: Date) throws -> [UInt8] {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &+ $0 >> 11) }
        try Data(bytes).write(to: url)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: url.path)
        return bytes
    }

    func hex(_ bytes: [UInt8]) -> String { SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() }

    let noon = Date(timeIntervalSince1970: 1_700_000_000)

    @Test(arguments: [0, 1, (1 << 20) - 1, 1 << 20, 9 * (1 << 20) + 5])
    func theDigestIsTheSHA256OfTheWholeFile(size: Int) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = scratch.appending("file.bin")
        let bytes = try write(url, size: size, seed: 3, modified: noon)
        let (gotSize, sha256) = try await LocalSendFileDigests().digest(of: url)
        #expect(gotSize == UInt64(size))
        #expect(sha256 == hex(bytes))
        if size == 0 { #expect(sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") }
    }

    @Test func aVersionAlreadyHashedIsNotReadAgainButAChangedOneIs() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = scratch.appending("video.mp4")
        let first = try write(url, size: 100_000, seed: 1, modified: noon)
        let digests = LocalSendFileDigests()
        #expect(try await digests.digest(of: url).sha256 == hex(first))
        // New bytes, same size and time: the same version as far as a file's stamp tells, so not read again (a
        // PIN asked twice costs one hash).
        let second = try write(url, size: 100_000, seed: 2, modified: noon)
        #expect(try await digests.digest(of: url).sha256 == hex(first))
        #expect(digests.count == 1)
        // Another modification time is another version.
        try FileManager.default.setAttributes([.modificationDate: noon + 1], ofItemAtPath: url.path)
        #expect(try await digests.digest(of: url).sha256 == hex(second))
        // Another size too.
        let third = try write(url, size: 100_001, seed: 2, modified: noon)
        #expect(try await digests.digest(of: url).sha256 == hex(third))
        #expect(digests.count == 3)
    }

    @Test func workBegunEarlyIsUsedAndDroppedWorkIsForgotten() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = scratch.appending("a.bin")
        let bytes = try write(url, size: 5 << 20, seed: 4, modified: noon)
        let digests = LocalSendFileDigests()
        digests.start(url)
        digests.start(url)
        #expect(digests.count == 1)
        digests.cancelAll()
        #expect(digests.count == 0)
        // Nothing dropped is taken for a digest: asking again hashes the file afresh.
        #expect(try await digests.digest(of: url).sha256 == hex(bytes))
        #expect(digests.count == 1)
        // A file that cannot be read is left for the send to report, and nothing is started for it.
        digests.start(scratch.appending("missing.bin"))
        #expect(digests.count == 1)
    }

    @Test func aHashThatFailedIsNotKept() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.appending("folder")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        let digests = LocalSendFileDigests()
        await #expect(throws: (any Error).self) { try await digests.digest(of: directory) }
        #expect(digests.count == 0)
    }
}
