import HuddleBase
import Testing

/// ``DisplayText/escaped(_:)``: what every printed line goes through. Controls become visible, nothing else moves.
@Suite("Display text escapes")
struct DisplayTextEscapeTests {
    @Test(arguments: [
        ("plain", "plain"),
        ("", ""),
        ("Küche 打印机 ✓ e\u{301}", "Küche 打印机 ✓ e\u{301}"),
        ("x\u{1B}[31m", "x\\e[31m"),
        ("\u{1B}]52;c;Y3VybA==\u{07}", "\\e]52;c;Y3VybA==\\a"),
        ("a\u{08}\u{09}\u{0A}\u{0B}\u{0C}\u{0D}b", "a\\b\\t\\n\\v\\f\\rb"),
        ("\u{00}\u{01}\u{1F}\u{7F}", "\\u{0}\\u{1}\\u{1F}\\u{7F}"),
        ("\u{80}\u{85}\u{9B}2J\u{9F}", "\\u{80}\\u{85}\\u{9B}2J\\u{9F}"),
        ("abc\u{202E}fdp.exe", "abc\\u{202E}fdp.exe"),
        ("\u{202A}\u{202B}\u{202C}\u{202D}", "\\u{202A}\\u{202B}\\u{202C}\\u{202D}"),
        ("\u{2066}\u{2067}\u{2068}\u{2069}", "\\u{2066}\\u{2067}\\u{2068}\\u{2069}"),
        ("\u{200E}\u{200F}\u{061C}", "\\u{200E}\\u{200F}\\u{61C}"),
        ("one\u{2028}two\u{2029}", "one\\u{2028}two\\u{2029}"),
        ("C:\\path\\e", "C:\\path\\e"),
    ])
    func escapes(text: String, shown: String) {
        #expect(DisplayText.escaped(text) == shown)
    }

    @Test func theResultHoldsNoControlAndEscapesToItself() {
        var all = String.UnicodeScalarView()
        for value in UInt32(0)...0x30FF {
            if let scalar = Unicode.Scalar(value) { all.append(scalar) }
        }
        let shown = DisplayText.escaped(String(all))
        #expect(!shown.unicodeScalars.contains(where: DisplayText.isEscaped))
        #expect(DisplayText.escaped(shown) == shown)
    }
}
