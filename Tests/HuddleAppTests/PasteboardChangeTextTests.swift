import HuddleApp
import HuddlePasteboard
import Testing

@Suite struct PasteboardChangeTextTests {
    func change(_ text: String, _ sequence: Int, secret: Bool = false) -> PasteboardChange {
        PasteboardChange(item: PasteboardItem(text: text), types: [.plainText], isSecret: secret, sequence: sequence)
    }

    @Test func aTextIsShownByItsStartOnOneLineASecretNotAtAll() {
        #expect(
            PasteboardChangeText.line(change("one\ntwo", 4)) == "#4 \"one⏎two\" [\(PasteboardType.plainText.rawValue)]"
        )
        let cut = PasteboardChangeText.line(change(String(repeating: "a", count: 70), 5))
        #expect(cut.hasPrefix("#5 \"" + String(repeating: "a", count: 59) + "…\" ["))
        #expect(PasteboardChangeText.line(change("hunter2", 6, secret: true)).hasPrefix("#6 secret item (not shown) ["))
        let empty = PasteboardChange(item: PasteboardItem(), types: [], isSecret: false, sequence: 7)
        #expect(PasteboardChangeText.line(empty) == "#7 (empty: the owner went away)")
    }
}
