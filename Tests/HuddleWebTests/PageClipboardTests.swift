import Foundation
import HuddleDaemon
import Testing

@testable import HuddleWeb

/// The page's "Clipboard" section (docs/web.md, "The clipboard"): how to turn sync on when it is off, a line when
/// nothing was copied yet, else the items newest first with who and their text, escaped.
@Suite struct PageClipboardTests {
    static let now = Date(timeIntervalSince1970: 1_000_000)

    @Test("off: says how to turn it on")
    func off() {
        let html = PageHTML.clipboard(nil, now: Self.now)
        #expect(html.contains("<section id=\"clipboard\"><h2>Clipboard</h2><p class=\"empty\">Clipboard sync is off: "))
        #expect(html.contains("<span class=\"id\">clip-sync = true</span> in config.toml"))
    }

    @Test("on, nothing yet: says so")
    func empty() {
        #expect(PageHTML.clipboard([], now: Self.now).contains("<p class=\"empty\">Nothing copied here or on a paired"))
    }

    @Test("items newest first, who and their text escaped")
    func items() {
        let entries = [
            ClipboardEntry(
                at: Self.now.addingTimeInterval(-120),
                direction: .taken,
                peers: ["<b>Bob</b>"],
                summary: "text/plain;charset=utf-8 (9 B)",
                text: "a & <i>b</i>"
            ),
            ClipboardEntry(
                at: Self.now.addingTimeInterval(-5),
                direction: .shared,
                peers: ["DaBob", "Cy"],
                summary: "image/png (1.0 MiB)"
            ),
        ]
        let html = PageHTML.clipboard(entries, now: Self.now)
        let went = html.range(
            of: "<span class=\"name\">To DaBob, Cy</span><div class=\"detail\">image/png (1.0 MiB) · "
        )
        let came = html.range(
            of:
                "<span class=\"name\">From &lt;b&gt;Bob&lt;/b&gt;</span><p class=\"said\">a &amp; &lt;i&gt;b&lt;/i&gt;</p>"
                + "<div class=\"detail\">text/plain;charset=utf-8 (9 B) · "
        )
        #expect(went != nil && came != nil)
        if let went, let came { #expect(went.lowerBound < came.lowerBound) }
        #expect(!html.contains("<b>"))
    }

    @Test("the whole page has the section, from the state")
    func onThePage() {
        var state = PageState(name: "DaAda", shortID: "ABCDEFG", directory: "/in")
        #expect(PageHTML.render(state, token: "t", now: Self.now).contains("Clipboard sync is off"))
        state.clipboard = []
        #expect(PageHTML.render(state, token: "t", now: Self.now).contains("Nothing copied here"))
    }
}
