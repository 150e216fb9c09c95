import Foundation
import HuddleClipboard
import HuddlePasteboard
import Testing

@Suite("Clipboard messages on the wire")
struct ClipMessageTests {
    static let stamp = ClipStamp(time: 1_700_000_000_123, counter: 4, origin: "instance-Ünï")

    static var item: PasteboardItem {
        PasteboardItem([
            .init(type: .utf8PlainText, data: Data("hello".utf8)),
            .init(type: .png, data: Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2])),
            .init(type: "application/x-unknown", data: Data([9, 9])),
        ])
    }

    @Test(arguments: [
        ClipMessage.sync(stamp, item), .share(stamp, item), .answer(stamp, accepted: true, reason: ""),
        .answer(stamp, accepted: false, reason: "over the 1.0 MiB limit"),
    ])
    func roundTrip(message: ClipMessage) throws {
        let bytes = message.encoded()
        #expect(Array(bytes.prefix(4)) == Array("HCL1".utf8))
        #expect(try ClipMessage(decoding: bytes) == message)
    }

    /// Reasons and origins are cut at a character boundary: a long reason of two-byte characters used to be cut
    /// inside one, and the reader refused the answer as invalid text.
    @Test func aLongReasonAndOriginAreCutWholeAndDecode() throws {
        let stamp = ClipStamp(time: 1, counter: 1, origin: "x" + String(repeating: "ö", count: 40))
        let message = ClipMessage.answer(stamp, accepted: false, reason: "x" + String(repeating: "ü", count: 300))
        let decoded = try ClipMessage(decoding: message.encoded())
        guard case .answer(let got, false, let reason) = decoded else {
            Issue.record("decoded \(decoded)")
            return
        }
        #expect(reason == "x" + String(repeating: "ü", count: 255))  // 511 of 512 bytes
        #expect(got.origin == "x" + String(repeating: "ö", count: 31))  // 63 of 64 bytes
    }

    @Test func theLayoutIsAsDocumented() {
        let bytes = ClipMessage.answer(ClipStamp(time: 258, counter: 3, origin: "ab"), accepted: true, reason: "ok")
            .encoded()
        #expect(bytes == Array("HCL1".utf8) + [3, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 3, 2, 97, 98, 1, 111, 107])
    }

    @Test func hostileAndBrokenBytesAreTypedErrors() {
        let good = ClipMessage.sync(Self.stamp, Self.item).encoded()
        #expect(throws: ClipMessageError.notAClipMessage) { try ClipMessage(decoding: Array("chat hello".utf8)) }
        var kind = good
        kind[4] = 9
        #expect(throws: ClipMessageError.unknownKind(9)) { try ClipMessage(decoding: kind) }
        #expect(throws: ClipMessageError.truncated(at: 18)) { try ClipMessage(decoding: Array(good.prefix(20))) }
        var origin = good
        origin[17] = 200
        #expect(throws: ClipMessageError.fieldTooLong("origin", 200)) { try ClipMessage(decoding: origin) }
        // Every prefix of a valid message fails cleanly (never traps, never half-decodes).
        for length in 0..<good.count {
            #expect(throws: ClipMessageError.self) { try ClipMessage(decoding: Array(good.prefix(length))) }
        }
        var badArchive = good
        badArchive[18 + Self.stamp.origin.utf8.count - 1 + 1] = 0x58
        #expect(throws: ClipMessageError.self) { try ClipMessage(decoding: badArchive) }
        let longReason =
            ClipMessage.answer(Self.stamp, accepted: false, reason: "").encoded() + Array(repeating: 65, count: 600)
        #expect(throws: ClipMessageError.fieldTooLong("reason", 600)) { try ClipMessage(decoding: longReason) }
    }
}
