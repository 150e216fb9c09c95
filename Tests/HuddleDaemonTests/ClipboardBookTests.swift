import Foundation
import HuddlePasteboard
import Testing

@testable import HuddleDaemon

/// The daemon's clipboard items (docs/daemon.md, "The clipboard"): the newest kept, the start of a text, and their
/// line in a terminal.
@Suite struct ClipboardBookTests {
    static func entry(_ number: Int, text: String? = nil) -> ClipboardEntry {
        ClipboardEntry(
            at: Date(timeIntervalSince1970: Double(number)),
            direction: number % 2 == 0 ? .taken : .shared,
            peers: ["DaBob"],
            summary: "text/plain;charset=utf-8 (\(number) B)",
            text: text
        )
    }

    @Test("keeps the newest 20, oldest first")
    func keepsTheNewest() {
        let book = ClipboardBook()
        #expect(book.entries.isEmpty)
        for number in 1...23 { book.add(Self.entry(number)) }
        #expect(book.entries.map(\.summary) == (4...23).map { "text/plain;charset=utf-8 (\($0) B)" })
    }

    @Test("an item's text is kept up to 200 characters")
    func textIsCut() {
        let long = String(repeating: "é", count: 250)
        #expect(Self.entry(1, text: long).text == String(repeating: "é", count: 200))
        #expect(Self.entry(1, text: "short").text == "short")
        #expect(Self.entry(1).text == nil)
    }

    @Test("a terminal line says which way, with whom, and a peer's text made safe to print")
    func terminalLine() {
        var taken = Self.entry(2, text: "hi\u{1B}[31m there")
        taken.peers = ["Da\u{1B}]0;Bob"]
        let line = ClipboardText.line(taken)
        #expect(!line.contains("\u{1B}"))
        #expect(line.hasSuffix(" ← from Da]0;Bob: text/plain;charset=utf-8 (2 B) \"hi[31m there\""))
        var shared = Self.entry(3)
        shared.peers = ["DaBob", "Cy"]
        #expect(ClipboardText.line(shared).hasSuffix(" → to DaBob, Cy: text/plain;charset=utf-8 (3 B)"))
        #expect(ClipboardText.line(shared).prefix(6).allSatisfy { $0.isNumber || $0 == ":" || $0 == " " })
    }

    @Test("a shared item in a question: its summary, and the start of its text made safe")
    func describedForAQuestion() {
        let text = PasteboardItem([.init(type: .plainText, data: Data("hi\u{1B}[2J there".utf8))])
        #expect(ClipboardText.described(text, summary: "text (9 B)") == "text (9 B) \"hi[2J there\"")
        let image = PasteboardItem([.init(type: .png, data: Data([0x89, 0x50]))])
        #expect(ClipboardText.described(image, summary: "image/png (2 B)") == "image/png (2 B)")
    }
}
