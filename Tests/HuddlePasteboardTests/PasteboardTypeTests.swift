import Foundation
import Testing

@testable import HuddlePasteboard

@Suite("Pasteboard types: UTI ↔ MIME ↔ X11 targets")
struct PasteboardTypeTests {
    @Test(
        "Apple's UTIs map to the MIME types Linux uses and back",
        arguments: [
            (PasteboardType.utf8PlainText, "text/plain;charset=utf-8"),
            (.plainText, "text/plain"),
            (.html, "text/html"),
            (.url, "text/uri-list"),
            (.png, "image/png"),
            (.jpeg, "image/jpeg"),
            (.gif, "image/gif"),
            (.pdf, "application/pdf"),
        ]
    )
    func utiToMime(type: PasteboardType, mime: String) {
        #expect(type.mimeType == mime)
        #expect(PasteboardType(mime).canonical == type)
        #expect(PasteboardType.fromExternal(mime) == type)
        #expect(type.isEquivalent(to: PasteboardType(mime)))
    }

    @Test("MIME spellings are matched case-insensitively, with or without quotes and spaces")
    func mimeSpellings() {
        for spelling in ["text/plain;charset=UTF-8", "TEXT/PLAIN; charset=\"utf-8\"", "UTF8_STRING"] {
            #expect(PasteboardType(spelling).canonical == .utf8PlainText, "\(spelling)")
        }
        #expect(PasteboardType("image/jpg").canonical == .jpeg)
    }

    @Test("X11 targets: UTF-8 text is offered as UTF8_STRING first, then the MIME names, then STRING and TEXT")
    func x11Targets() {
        #expect(
            PasteboardType.utf8PlainText.x11Targets == [
                "UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "STRING", "TEXT",
            ]
        )
        #expect(PasteboardType.png.x11Targets == ["image/png"])
        #expect(PasteboardType("STRING").canonical == .utf8PlainText)
        #expect(PasteboardType("TEXT").isText)
        #expect(!PasteboardType.png.isText)
    }

    @Test("unknown types are carried through untouched under every spelling")
    func unknownTypes() {
        let custom = PasteboardType("application/x-huddle-test")
        #expect(custom.canonical == custom)
        #expect(custom.mimeType == "application/x-huddle-test")
        #expect(custom.x11Targets == ["application/x-huddle-test"])
        let uti = PasteboardType("com.example.private")
        #expect(uti.canonical == uti)
        #expect(uti.mimeType == nil)
        #expect(uti.x11Targets == ["com.example.private"])
        #expect(!uti.isEquivalent(to: custom))
    }
}

@Suite("Pasteboard items")
struct PasteboardItemTests {
    @Test("representations keep their order; a second one of the same type replaces the first")
    func order() {
        var item = PasteboardItem(text: "hi")
        item.setData(Data([1, 2]), for: .png)
        item.setData(Data("bye".utf8), for: .utf8PlainText)
        #expect(item.types == [.utf8PlainText, .png])
        #expect(item.string == "bye")
        #expect(item.byteCount == 5)
        item.removeData(for: .png)
        #expect(item.types == [.utf8PlainText])
    }

    @Test("lookup by any spelling: exact first, then equivalent, then plain text for UTF-8 text")
    func lookup() {
        var item = PasteboardItem(type: PasteboardType("image/png"), data: Data([9]))
        item.setData(Data("plain".utf8), for: PasteboardType("text/plain"))
        #expect(item.data(for: .png) == Data([9]))
        #expect(item.data(for: .utf8PlainText) == Data("plain".utf8))
        #expect(item.string == "plain")
        #expect(item.data(for: .jpeg) == nil)
    }

    @Test("items marked secret by a password manager are flagged; others are not")
    func secret() {
        let plain = PasteboardItem(text: "hunter2")
        #expect(!plain.isSecret)
        #expect(plain.markedSecret().isSecret)
        var notSecret = plain
        notSecret.setData(Data("public".utf8), for: .passwordManagerHint)
        #expect(!notSecret.isSecret)
        var concealed = plain
        concealed.setData(Data(), for: .concealed)
        #expect(concealed.isSecret)
    }

    @Test("X11 answers: STRING is Latin-1 with '?' for the rest, TEXT is UTF-8, targets listed best first")
    func x11Contents() {
        var item = PasteboardItem(text: "né ✓")
        item.setData(Data([1]), for: PasteboardType("application/x-thing"))
        let contents = X11SelectionContents(item: item)
        #expect(
            contents.targets == [
                "TARGETS", "TIMESTAMP", "UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "STRING", "TEXT",
                "public.utf8-plain-text", "application/x-thing",
            ]
        )
        #expect(contents.answer(for: "STRING") == .init(type: "STRING", data: Data([0x6E, 0xE9, 0x20, 0x3F])))
        #expect(contents.answer(for: "TEXT") == .init(type: "UTF8_STRING", data: Data("né ✓".utf8)))
        #expect(contents.answer(for: "application/x-thing")?.data == Data([1]))
        #expect(contents.answer(for: "image/png") == nil)
    }
}
