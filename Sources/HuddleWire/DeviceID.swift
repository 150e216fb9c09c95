import Crypto

/// A device's identity: SHA-256 over the DER SubjectPublicKeyInfo of its long-term key (`docs/security.md` §3.2).
///
/// Hashing the key rather than the certificate means a re-issued certificate with the same key keeps the ID.
/// The text form is RFC 4648 base32 of the 32 bytes (52 characters) cut into four blocks of 13, each followed by
/// a Luhn mod 32 check character, then shown as eight groups of seven: `ABCDEFG-HIJKLMN-…`. A typo in any one
/// character of a block is caught by its check character.
public struct DeviceID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 32 bytes of the hash.
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws {
        guard bytes.count == 32 else { throw DeviceIDError.wrongLength(bytes.count) }
        self.bytes = bytes
    }

    /// The ID of the key whose SubjectPublicKeyInfo DER is `spki`.
    public init(subjectPublicKeyInfo spki: [UInt8]) {
        self.bytes = Array(SHA256.hash(data: spki))
    }

    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// The full text form with check characters, in groups of seven.
    public var description: String {
        let plain = Self.base32(bytes)
        var checked: [UInt8] = []
        for block in 0..<4 {
            let chunk = Array(plain[(block * 13)..<(block * 13 + 13)])
            checked += chunk + [Self.luhnCheck(chunk)]
        }
        var text: [UInt8] = []
        for (index, character) in checked.enumerated() {
            if index > 0 && index % 7 == 0 { text.append(UInt8(ascii: "-")) }
            text.append(character)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The first seven characters, for lists and prompts.
    public var shortID: String { String(description.prefix(7)) }

    /// Parses the text form: with or without dashes and spaces, any case; the four check characters must match.
    public init(_ text: String) throws {
        let characters = text.uppercased().utf8.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: " ") }
        guard characters.count == 56 else { throw DeviceIDError.wrongLength(characters.count) }
        var plain: [UInt8] = []
        for block in 0..<4 {
            let chunk = Array(characters[(block * 14)..<(block * 14 + 13)])
            guard chunk.allSatisfy(Self.alphabet.contains) else { throw DeviceIDError.invalidCharacter }
            guard Self.luhnCheck(chunk) == characters[block * 14 + 13] else {
                throw DeviceIDError.checkCharacterMismatch(block: block + 1)
            }
            plain += chunk
        }
        let decoded = Self.unbase32(plain)
        guard decoded.count == 32 else { throw DeviceIDError.invalidCharacter }
        self.bytes = decoded
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    static func base32(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return output
    }

    static func unbase32(_ characters: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var buffer = 0
        var bits = 0
        for character in characters {
            guard let value = alphabet.firstIndex(of: character) else { return [] }
            buffer = (buffer << 5) | value
            bits += 5
            if bits >= 8 {
                output.append(UInt8((buffer >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return output
    }

    /// Luhn mod N over the base32 alphabet (N = 32): doubling every second value from the right.
    static func luhnCheck(_ characters: [UInt8]) -> UInt8 {
        var factor = 2
        var sum = 0
        for character in characters.reversed() {
            var addend = factor * alphabet.firstIndex(of: character)!
            factor = factor == 2 ? 1 : 2
            addend = addend / 32 + addend % 32
            sum += addend
        }
        return alphabet[(32 - sum % 32) % 32]
    }
}

/// Why a device ID text or value was refused.
public enum DeviceIDError: Error, Hashable, Sendable, CustomStringConvertible {
    case wrongLength(Int)
    case invalidCharacter
    case checkCharacterMismatch(block: Int)

    public var description: String {
        switch self {
        case .wrongLength(let count): "a device ID has 56 characters (8 groups of 7), not \(count)"
        case .invalidCharacter: "a device ID uses only the letters A–Z and the digits 2–7"
        case .checkCharacterMismatch(let block):
            "typo in a device ID: the check character of block \(block) does not match"
        }
    }
}
