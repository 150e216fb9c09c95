import HuddleWire
import NIOCore
import Testing

@Suite("Text fields are cut at a character boundary, so a long honest field is never refused")
struct WireTextTests {
    @Test func aCutThatWouldSplitACharacterStopsBeforeIt() {
        let text = "a" + String(repeating: "é", count: 2048)  // 4097 bytes; byte 4096 is the first half of an é
        let bytes = WireText.utf8Prefix(of: text, maximumBytes: 4096)
        #expect(bytes.count == 4095)
        #expect(String(validating: bytes, as: UTF8.self) == "a" + String(repeating: "é", count: 2047))
    }

    @Test func aFlagIsKeptWholeOrLeftOut() {
        let flag = "🇪🇺"  // two scalars, one character, 8 bytes
        #expect(WireText.utf8Prefix(of: "ab" + flag, maximumBytes: 9) == Array("ab".utf8))
        #expect(WireText.utf8Prefix(of: "ab" + flag, maximumBytes: 10) == Array(("ab" + flag).utf8))
    }

    @Test func shortTextIsUnchanged() {
        #expect(WireText.utf8Prefix(of: "héllo", maximumBytes: 6) == Array("héllo".utf8))
        #expect(WireText.utf8Prefix(of: "", maximumBytes: 0) == [])
    }

    /// A CANCEL reason naming a long path of two-byte characters: it used to be cut inside a character and the
    /// reader refused the whole message (so the receiver never learnt why the transfer ended).
    @Test func aLongCancelReasonStillDecodes() throws {
        let id = TransferID(bytes: Array(0..<16))
        let reason = "cannot read /" + String(repeating: "ü", count: 3000)
        var buffer = ByteBuffer()
        TransferMessage.cancel(id, reason: reason).encode(into: &buffer)
        let decoded = try TransferMessage(decoding: buffer)
        guard case .cancel(id, let received) = decoded else {
            Issue.record("decoded \(decoded)")
            return
        }
        #expect(received.utf8.count <= 4096)
        #expect(reason.hasPrefix(received) && received.utf8.count >= 4095)
    }
}
