import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

@Suite("Resume keys: earlier versions and data from memory")
struct ResumeKeyTests {
    /// A partial file of an earlier version of the same name can never be resumed (its key is gone): it is
    /// removed when the new transfer of that name starts. Other names' partial files stay.
    @Test func partialFilesOfAnEarlierVersionGoWhenTheNameIsSentAgain() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let bobID = bob.peerID
            let source = try scope.directory()
            let target = try scope.directory()
            let url = try TransferTests.file(1 << 20, named: "doc.bin", in: source, seed: 4)
            let stale = ".doc.bin.0123456789abcdef.huddle-partial"
            let others = [".other.bin.0123456789abcdef.huddle-partial", ".doc.bin.notakey.huddle-partial"]
            for name in [stale] + others { try Data([1, 2, 3]).write(to: target.appendingPathComponent(name)) }
            let sending = Task { try await ada.transfers.sendFile(at: url, to: bobID) }
            let offered = try #require(await bob.offer())
            try await bob.accept(offered, into: target)
            _ = try await sending.value
            let kept = try #require(await bob.finished())
            #expect(try Data(contentsOf: kept) == Data(contentsOf: url))
            let left = try FileManager.default.contentsOfDirectory(atPath: target.path).sorted()
            #expect(left == (["doc.bin"] + others).sorted())
        }
    }

    @Test func inMemoryDataResumesNothingButIsCheckedWhole() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let bobID = bob.peerID
            let target = try scope.directory()
            let data = Data(TransferTests.pattern(2 << 20 + 17))
            let sending = Task { try await ada.transfers.sendData(data, named: "shot.png", to: bobID) }
            let offered = try #require(await bob.offer())
            #expect(offered.contentKey == ResumeKey.of(data: data).hexString)
            try await bob.accept(offered, into: target)
            _ = try await sending.value
            let kept = try #require(await bob.finished())
            #expect(try Data(contentsOf: kept) == data)
        }
    }
}
