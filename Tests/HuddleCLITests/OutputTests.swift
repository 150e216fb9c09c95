import Foundation
import HuddleDNS
import HuddleMDNSCore
import Testing

@testable import huddle

/// The output boundary: the same text for every printing path, plain or JSON, with no terminal control in it.
@Suite("Output boundary")
struct OutputTests {
    static let hostile = "x\u{1B}[31m\u{9B}2J\u{202E}y\u{07}"

    @Test func plainLinesShowControlsAsEscapes() {
        #expect(Output.text("+ \(Self.hostile) here") == "+ x\\e[31m\\u{9B}2J\\u{202E}y\\a here")
        #expect(Output.text("ünïcode ✓") == "ünïcode ✓")
    }

    @Test func jsonKeepsTheValueAndHoldsNoControl() throws {
        let text = try #require(Output.jsonText(["name": Self.hostile, "n": 1]))
        #expect(!text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }))
        #expect(!text.contains("\u{202E}"))
        let back = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(back?["name"] as? String == Self.hostile)
        #expect(Output.jsonText(["a": "b/c ✓"]) == #"{"a":"b/c ✓"}"#)
    }
}
