import Foundation
import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// The text of a pairing link, both ways.
@Suite("Pairing link text")
struct PairingLinkTextTests {
    static func link() throws -> PairingLink {
        PairingLink(
            device: try DeviceID(bytes: Array(repeating: 7, count: 32)),
            name: "Ada's laptop & co",
            addresses: [PeerAddress(host: "10.1.2.3"), PeerAddress(host: "fd00::7", port: 5000)],
            secret: Array(0..<16),
            expires: Date(timeIntervalSince1970: 1_795_000_000)
        )
    }

    @Test func aLinkReadsBackAsItWasWritten() throws {
        let link = try Self.link()
        let text = link.description
        #expect(text.hasPrefix("huddle:pair?id=\(link.device)&n=Ada%27s%20laptop%20%26%20co&a=10.1.2.3:47474,"))
        #expect(text.hasSuffix("[fd00::7]:5000&s=000102030405060708090a0b0c0d0e0f&x=1795000000"))
        #expect(try PairingLink(parsing: text) == link)
        #expect(link.hasExpired(at: Date(timeIntervalSince1970: 1_795_000_000)))
        #expect(!link.hasExpired(at: Date(timeIntervalSince1970: 1_794_999_999)))
    }

    @Test(arguments: [
        ("https://example.invalid/pair", "it does not start with huddle:pair?"),
        ("huddle:pair?id=nope&s=00&x=1&a=10.1.2.3", "no valid id"),
        ("huddle:pair?id=DEVICE&s=0001&x=1&a=10.1.2.3", "no valid secret"),
        ("huddle:pair?id=DEVICE&s=SECRET&a=10.1.2.3", "no expiry"),
        ("huddle:pair?id=DEVICE&s=SECRET&x=1", "no address"),
    ])
    func aDamagedLinkIsRefusedAndSaysWhy(_ template: String, why: String) throws {
        let link = try Self.link()
        let text = template.replacingOccurrences(of: "DEVICE", with: "\(link.device)")
            .replacingOccurrences(of: "SECRET", with: "000102030405060708090a0b0c0d0e0f")
        #expect(throws: PeerSessionError.invalidConfiguration("not a pairing link: \(why) (huddle pair prints one)")) {
            try PairingLink(parsing: text)
        }
    }
}
