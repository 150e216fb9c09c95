import Crypto
import Foundation
import HuddleWire
import Testing

@Suite("Device ID")
struct DeviceIDTests {
    @Test func textFormRoundTripsAndHasCheckCharacters() throws {
        let id = DeviceID(subjectPublicKeyInfo: Array("some key".utf8))
        #expect(id.bytes == Array(SHA256.hash(data: Array("some key".utf8))))
        let text = id.description
        #expect(text.count == 56 + 7)
        #expect(text.split(separator: "-").map(\.count) == [7, 7, 7, 7, 7, 7, 7, 7])
        #expect(try DeviceID(text) == id)
        #expect(try DeviceID(text.lowercased().replacingOccurrences(of: "-", with: " ")) == id)
        #expect(id.shortID == String(text.prefix(7)))
    }

    @Test func knownBytesGiveKnownText() throws {
        let zeros = try DeviceID(bytes: Array(repeating: 0, count: 32))
        #expect(zeros.description == "AAAAAAA-AAAAAAA-AAAAAAA-AAAAAAA-AAAAAAA-AAAAAAA-AAAAAAA-AAAAAAA")
        let ones = try DeviceID(bytes: Array(repeating: 0xFF, count: 32))
        // 256 one bits: 51 × "7" and a final character holding the last bit, padded with zeros ("Q").
        #expect(ones.description.replacingOccurrences(of: "-", with: "").prefix(13) == "7777777777777")
        #expect(try DeviceID(ones.description) == ones)
    }

    @Test func everySingleCharacterTypoIsCaught() throws {
        let id = DeviceID(subjectPublicKeyInfo: [1, 2, 3])
        let plain = Array(id.description.replacingOccurrences(of: "-", with: ""))
        for position in plain.indices {
            for replacement in "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567" where replacement != plain[position] {
                var typo = plain
                typo[position] = replacement
                #expect(throws: DeviceIDError.self) { try DeviceID(String(typo)) }
            }
        }
    }

    @Test func wrongInputIsRefusedWithAReason() {
        #expect(throws: DeviceIDError.wrongLength(3)) { try DeviceID("ABC") }
        #expect(throws: DeviceIDError.wrongLength(31)) { try DeviceID(bytes: Array(repeating: 0, count: 31)) }
        #expect(throws: DeviceIDError.invalidCharacter) { try DeviceID(String(repeating: "1", count: 56)) }
    }
}
