import Foundation
import Huddle
import HuddleWire
import Testing

@testable import huddle

/// `huddle pair -` takes the link from standard input, so that its secret is not in the process list.
@Suite("huddle pair: where the link comes from")
struct PairingLinkInputTests {
    let link = PairingLink(
        device: try! DeviceID(bytes: [UInt8](repeating: 0x42, count: 32)),
        name: "Ada",
        addresses: [PeerAddress(host: "192.0.2.7", port: 47474)],
        secret: [UInt8](repeating: 9, count: 16),
        expires: Date(timeIntervalSince1970: 2_000_000_000)
    )

    @Test func dashReadsTheFirstLineThatIsNotBlank() throws {
        var lines = ["", "   ", "  \(link.description)  ", "ignored"][...]
        let read = try PairingLinkInput.read("-") { lines.popFirst() }
        #expect(read.description == link.description)
        #expect(read.device == link.device)
        #expect(lines == ["ignored"])
    }

    @Test func dashWithNothingOnStandardInputSaysSo() {
        #expect(throws: PeerSessionError.invalidConfiguration("no pairing link on standard input")) {
            try PairingLinkInput.read("-") { nil }
        }
    }

    @Test func aLinkGivenAsTheArgumentStillWorks() throws {
        let read = try PairingLinkInput.read(link.description) {
            Issue.record("standard input is not read for a link given as the argument")
            return nil
        }
        #expect(read.description == link.description)
    }
}
