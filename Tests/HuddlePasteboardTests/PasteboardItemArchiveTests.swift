import Foundation
import HuddlePasteboard
import Testing

@Suite("The stored item format (HPB1)")
struct PasteboardItemArchiveTests {
    @Test("round trip: every representation, its order, the creation and expiry times")
    func roundTrip() throws {
        var item = PasteboardItem(text: "héllo")
        item.setData(Data([0x89, 0x50, 0x4E, 0x47]), for: .png)
        item.setData(Data(), for: PasteboardType("application/x-empty"))
        let archive = PasteboardItemArchive(
            item: item,
            created: Date(timeIntervalSince1970: 1_700_000_000.7),
            expires: Date(timeIntervalSince1970: 1_700_000_060)
        )
        let decoded = try PasteboardItemArchive(decoding: archive.encoded())
        #expect(decoded == archive)
        #expect(decoded.item.types == [.utf8PlainText, .png, PasteboardType("application/x-empty")])
        #expect(decoded.created.timeIntervalSince1970 == 1_700_000_000)
        #expect(decoded.isExpired(at: Date(timeIntervalSince1970: 1_700_000_060)))
        #expect(!decoded.isExpired(at: Date(timeIntervalSince1970: 1_700_000_059)))
    }

    @Test("the exact bytes of a small archive")
    func wireBytes() {
        let archive = PasteboardItemArchive(
            item: PasteboardItem(type: "a/b", data: Data([7])),
            created: Date(timeIntervalSince1970: 1)
        )
        let expected: [UInt8] =
            Array("HPB1".utf8) + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 1]
            + [0, 0, 0, 3] + Array("a/b".utf8) + [0, 0, 0, 0, 0, 0, 0, 1, 7]
        #expect(archive.encoded() == Data(expected))
    }

    @Test("malformed archives are rejected with the offset, never a crash")
    func malformed() throws {
        let good = PasteboardItemArchive(item: PasteboardItem(text: "hello")).encoded()
        for cut in [0, 3, 4, 20, 24, 30, good.count - 1] {
            let error = try #require(throws: PasteboardError.self) {
                try PasteboardItemArchive(decoding: good.prefix(cut))
            }
            #expect(error.code == .malformedArchive, "cut at \(cut)")
        }
        var huge = good
        huge.replaceSubrange(24..<28, with: [0xFF, 0xFF, 0xFF, 0xFF])  // type length
        #expect(throws: PasteboardError.self) { try PasteboardItemArchive(decoding: huge) }
        var bad = good
        bad[0] = UInt8(ascii: "X")
        let error = try #require(throws: PasteboardError.self) { try PasteboardItemArchive(decoding: bad) }
        #expect(error.message.contains("magic"))
        #expect(throws: PasteboardError.self) { try PasteboardItemArchive(decoding: good + Data([0])) }
    }
}
