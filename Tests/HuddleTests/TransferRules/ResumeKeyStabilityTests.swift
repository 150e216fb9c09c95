import Foundation
import HuddleTestSupport
import HuddleTransport
import NIOCore
import Testing

@testable import Huddle

@Suite("Resume keys follow the content and the modification time")
struct ResumeKeyStabilityTests {
    @Test func theResumeKeyIsStableAndFollowsTheModificationTime() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let source = scratch.url
        let url = try TransferTests.file(3 << 20, named: "doc.bin", in: source, seed: 5)
        let (stamp, key) = try ResumeKey.of(file: url)
        #expect(stamp.size == 3 << 20)
        #expect(try ResumeKey.of(file: url).key == key)
        // The same bytes elsewhere with another time: another key (a resume never joins different files' parts).
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1e9)],
            ofItemAtPath: url.path
        )
        let moved = try ResumeKey.of(file: url)
        #expect(moved.key != key && moved.stamp.modifiedSeconds == 1_000_000_000)
        // Memory has no time: the key is the size and the first and last MiB.
        let data = try Data(contentsOf: url)
        #expect(ResumeKey.of(data: data) == ResumeKey.of(data: data))
        var changed = data
        changed[changed.count - 1] ^= 1
        #expect(ResumeKey.of(data: changed) != ResumeKey.of(data: data))
    }
}
