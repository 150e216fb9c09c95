import Foundation
import HuddleClipboard
import HuddlePasteboard
import Testing

/// A type name is whatever the peer sent: its summary shows terminal controls in it as escapes, never raw.
@Suite("Clip item summary text")
struct ClipItemSummaryTextTests {
    @Test func peerSuppliedTypeNamesAreShownEscaped() {
        let item = PasteboardItem([
            .init(type: PasteboardType("text/x\u{1B}]52;c;Y3VybA==\u{07}"), data: Data("a".utf8)),
            .init(type: PasteboardType("image/\u{9B}2J\u{202E}gnp"), data: Data("bc".utf8)),
        ])
        let text = ClipItemSummary(item).description
        #expect(text == "text/x\\e]52;c;Y3VybA==\\a (1 B), image/\\u{9B}2J\\u{202E}gnp (2 B)")
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }
}
