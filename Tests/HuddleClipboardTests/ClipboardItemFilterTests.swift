import Foundation
import HuddleClipboard
import HuddlePasteboard
import Testing

@Suite("What clipboard sync lets through")
struct ClipboardItemFilterTests {
    static let mixed = PasteboardItem([
        .init(type: .utf8PlainText, data: Data("hello".utf8)),
        .init(type: .html, data: Data("<b>hello</b>".utf8)),
        .init(type: .png, data: Data(repeating: 7, count: 300)),
        .init(type: "text/uri-list", data: Data("https://example.invalid/\r\n".utf8)),
        .init(type: "application/x-thing", data: Data([1, 2, 3])),
    ])

    @Test func kindsOfTypes() {
        #expect(ClipboardItemFilter.Kind(of: .utf8PlainText) == .text)
        #expect(ClipboardItemFilter.Kind(of: .html) == .text)
        #expect(ClipboardItemFilter.Kind(of: "text/plain;charset=utf-8") == .text)
        #expect(ClipboardItemFilter.Kind(of: .png) == .image)
        #expect(ClipboardItemFilter.Kind(of: "image/webp") == .image)
        #expect(ClipboardItemFilter.Kind(of: "text/uri-list") == .url)
        #expect(ClipboardItemFilter.Kind(of: .pdf) == .other)
    }

    @Test func typesKeepsOnlyTheChosenKinds() throws {
        let filter = ClipboardItemFilter(kinds: try ClipboardItemFilter.kinds(parsing: "text, IMAGE"))
        guard case .admit(let kept) = filter.admit(Self.mixed) else {
            Issue.record("text and image are allowed")
            return
        }
        #expect(kept.types == [.utf8PlainText, .html, .png])
        #expect(kept.data(for: .png) == Data(repeating: 7, count: 300))
    }

    @Test func nothingAllowedIsARefusalNamingTheTypes() throws {
        let filter = ClipboardItemFilter(kinds: [.url])
        let verdict = filter.admit(PasteboardItem(type: .png, data: Data([1])))
        #expect(verdict == .refuse("its types (public.png) are not among those synced (url)"))
    }

    @Test func secretItemsAreRefusedWhateverTheirKind() {
        let verdict = ClipboardItemFilter().admit(PasteboardItem(text: "hunter2").markedSecret())
        #expect(verdict == .refuse("it is marked secret by a password manager"))
    }

    @Test func theSizeCapCountsWhatWouldGo() {
        let filter = ClipboardItemFilter(kinds: [.text], maximumBytes: 100)
        var item = PasteboardItem(text: String(repeating: "x", count: 90))
        item.setData(Data(repeating: 0, count: 5000), for: .png)
        guard case .admit = filter.admit(item) else {
            Issue.record("the image is left out, so the text fits")
            return
        }
        let verdict = filter.admit(PasteboardItem(text: String(repeating: "x", count: 2048)))
        #expect(verdict == .refuse("it is 2.0 KiB, over the 100 B limit"))
    }

    @Test func badKindListsAreTypedErrors() {
        #expect(throws: ClipboardSyncError.badTypeList("sound")) {
            try ClipboardItemFilter.kinds(parsing: "text,sound")
        }
        #expect(throws: ClipboardSyncError.self) { try ClipboardItemFilter.kinds(parsing: " , ") }
    }

    @Test func theDigestDependsOnContentNotOrderOrSpelling() {
        let one = PasteboardItem([
            .init(type: .utf8PlainText, data: Data("a".utf8)), .init(type: .png, data: Data([1])),
        ])
        let other = PasteboardItem([
            .init(type: "image/png", data: Data([1])), .init(type: .utf8PlainText, data: Data("a".utf8)),
        ])
        #expect(ClipboardItemFilter.digest(of: one) == ClipboardItemFilter.digest(of: other))
        #expect(ClipboardItemFilter.digest(of: one) != ClipboardItemFilter.digest(of: PasteboardItem(text: "a")))
        // Type and data boundaries are length-prefixed: moving a byte between them changes the digest.
        let shifted = PasteboardItem(type: "ab", data: Data("c".utf8))
        let unshifted = PasteboardItem(type: "a", data: Data("bc".utf8))
        #expect(ClipboardItemFilter.digest(of: shifted) != ClipboardItemFilter.digest(of: unshifted))
        #expect(ClipboardItemFilter.digest(of: one).count == 64)
    }

    @Test func sizesForPeople() {
        #expect(ByteCountText.describe(512) == "512 B")
        #expect(ByteCountText.describe(1536) == "1.5 KiB")
        #expect(ByteCountText.describe(5_072_908) == "4.8 MiB")
        #expect(ByteCountText.describe(300 * 1024 * 1024) == "300 MiB")
    }
}
