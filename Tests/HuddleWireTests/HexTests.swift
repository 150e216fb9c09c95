import HuddleWire
import Testing

/// Hex text of bytes and back: every digest, fingerprint and token is written by ``Hex``.
@Suite("Hex")
struct HexTests {
    @Test("bytes to hex, lower-case by default, upper-case when asked, and back from either")
    func roundTrip() {
        let bytes: [UInt8] = [0x00, 0x0f, 0x10, 0xab, 0xff]
        #expect(Hex.encode(bytes) == "000f10abff")
        #expect(Hex.encode(bytes, uppercase: true) == "000F10ABFF")
        #expect(bytes.hexString == "000f10abff")
        #expect(Hex.decode("000f10abff") == bytes)
        #expect(Hex.decode("000F10ABFF") == bytes)
        #expect(Hex.decode("") == [])
    }

    @Test("an odd count or anything but a hex digit is not hex", arguments: ["abc", "0g", "zz", " 0", "0x00", "é0"])
    func notHex(_ text: String) {
        #expect(Hex.decode(text) == nil)
    }

    /// A generator that counts, so that a token's bytes are known.
    struct Counting: RandomNumberGenerator {
        var state: UInt64 = 0
        mutating func next() -> UInt64 {
            state += 1
            return state &* 0x0101_0101_0101_0101
        }
    }

    @Test("a random token: twice as many lower-case hex digits as bytes, drawn from the generator given")
    func randomToken() {
        var first = Counting()
        var second = Counting()
        let token = Hex.randomToken(byteCount: 16, using: &first)
        #expect(token.count == 32)
        #expect(token.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(token == Hex.randomToken(byteCount: 16, using: &second), "the same generator gives the same token")
        #expect(Hex.randomToken(byteCount: 16) != Hex.randomToken(byteCount: 16))
    }
}
