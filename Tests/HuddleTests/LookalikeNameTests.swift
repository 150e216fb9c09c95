import Huddle
import Testing

/// Which names look like "Bob" (`docs/security.md` §5 J3): case, width, spacing, invisible characters, accents and
/// letters from other scripts are folded away, real differences are not.
@Suite("Lookalike names")
struct LookalikeNameTests {
    @Test(arguments: ["Bob", "bob", " Bob  ", "ＢＯＢ", "B\u{200B}ob", "Bób", "Воb", "B\u{202E}ob", "Bo\u{0301}b"])
    func looksLikeBob(name: String) {
        #expect(DisplayText.lookalikeKey(name) == "bob")
    }

    @Test(arguments: ["Bo", "Bobby", "Rob", "B ob", "", "\u{200B}"])
    func doesNotLookLikeBob(name: String) {
        #expect(DisplayText.lookalikeKey(name) != "bob")
    }
}
