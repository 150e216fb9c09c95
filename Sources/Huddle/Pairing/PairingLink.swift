public import Foundation
public import HuddleWire

/// A pairing link (`docs/wire-protocol.md` §5.8): where a device is and which key it has, with a one-time secret
/// that lets whoever holds the link pair with it once, before it expires, without comparing codes.
///
/// ```
/// huddle:pair?id=ABCDEFG-…&n=Ada&a=10.1.2.3:47474,[fd00::7]:47474&s=<32 hex digits>&x=1795000000
/// ```
///
/// `id` is the device ID (section 2.3), `n` its name (percent-encoded, shown only), `a` the addresses to dial,
/// `s` the secret (``PairingLinkProof/secretSize`` bytes, hex), `x` when it expires (Unix seconds). The link is a
/// secret: whoever has it can pair once. It is never logged.
public struct PairingLink: Hashable, Sendable, CustomStringConvertible {
    public var device: DeviceID
    public var name: String
    public var addresses: [PeerAddress]
    public var secret: [UInt8]
    public var expires: Date

    public init(device: DeviceID, name: String, addresses: [PeerAddress], secret: [UInt8], expires: Date) {
        precondition(secret.count == PairingLinkProof.secretSize, "a link secret is 16 bytes")
        self.device = device
        self.name = name
        self.addresses = addresses
        self.secret = secret
        self.expires = expires
    }

    /// Reads a link as ``description`` writes it.
    ///
    /// - Throws: ``PeerSessionError/invalidConfiguration(_:)`` saying what is wrong.
    public init(parsing text: String) throws {
        func invalid(_ why: String) -> PeerSessionError {
            .invalidConfiguration("not a pairing link: \(why) (huddle pair prints one)")
        }
        let prefix = "huddle:pair?"
        guard text.hasPrefix(prefix) else { throw invalid("it does not start with \(prefix)") }
        var fields: [String: String] = [:]
        for pair in text.dropFirst(prefix.count).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let value = Self.percentDecoded(parts[1]) else {
                throw invalid("the field \(pair.prefix(12)) is malformed")
            }
            fields[String(parts[0])] = value
        }
        guard let idText = fields["id"], let device = try? DeviceID(idText) else { throw invalid("no valid id") }
        guard let secretText = fields["s"], let secret = Hex.decode(secretText),
            secret.count == PairingLinkProof.secretSize
        else { throw invalid("no valid secret") }
        guard let expiresText = fields["x"], let seconds = Int64(expiresText) else { throw invalid("no expiry") }
        let addresses = try (fields["a"] ?? "").split(separator: ",").map { try PeerAddress(parsing: String($0)) }
        guard !addresses.isEmpty else { throw invalid("no address") }
        self.init(
            device: device,
            name: fields["n"] ?? "",
            addresses: addresses,
            secret: secret,
            expires: Date(timeIntervalSince1970: TimeInterval(seconds))
        )
    }

    /// The link's text.
    public var description: String {
        let name = Self.percentEncoded(name)
        let addresses = addresses.map(\.description).joined(separator: ",")
        let expiry = Int64(expires.timeIntervalSince1970.rounded(.down))
        return "huddle:pair?id=\(device)&n=\(name)&a=\(addresses)&s=\(secret.hexString)&x=\(expiry)"
    }

    /// Whether it has expired at `now`.
    public func hasExpired(at now: Date = Date()) -> Bool { now >= expires }

    /// `text` with every byte outside RFC 3986 §2.3's unreserved characters as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            let character = Character(Unicode.Scalar(byte))
            if byte < 0x80, character.isLetter || character.isNumber || "-._~".contains(character) {
                encoded.append(character)
            } else {
                encoded += "%" + [byte].hexString.uppercased()
            }
        }
        return encoded
    }

    /// `text` with its `%XX` escapes decoded; nil when one is malformed or the result is not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var rest = text.utf8[...]
        while let first = rest.first {
            rest = rest.dropFirst()
            guard first == UInt8(ascii: "%") else {
                bytes.append(first)
                continue
            }
            guard rest.count >= 2, let byte = Hex.decode(String(decoding: rest.prefix(2), as: UTF8.self))?.first
            else { return nil }
            bytes.append(byte)
            rest = rest.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
