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
}
