import Foundation
import HuddleTestSupport
import Testing

@testable import HuddlePasteboard

/// An item carrying `count` types no catalogue knows (`application/x-huddle-0`, `-1`, …), one byte each, after a
/// text representation.
func itemWithUnknownTypes(_ count: Int) -> PasteboardItem {
    var representations = [PasteboardItem.Representation(type: .utf8PlainText, data: Data("hello".utf8))]
    for index in 0..<count {
        representations.append(.init(type: PasteboardType("application/x-huddle-\(index)"), data: Data([1])))
    }
    return PasteboardItem(representations)
}

/// Building an item costs time quadratic in its number of types, so the items here are built on a thread of their
/// own (``offPool(_:)``): built on the test's task, they held both threads of Swift's cooperative pool for
/// seconds beside CPU burners, starving every other test of the process.
@Suite("X11 targets offered for an item: the catalogue's, plus a bounded number of unknown ones")
struct X11TargetBoundTests {
    @Test("an item with 1,000 unknown types offers the first 16 of them only; its known types are all offered")
    func tenThousandUnknownTypes() async throws {
        // 1,000 keeps this test short and is still 60 times the bound.
        let contents = try await offPool {
            var item = itemWithUnknownTypes(1_000)
            // Known types after the flood are not crowded out, nor is a password manager's hint.
            item.setData(Data("<b>hi</b>".utf8), for: .html)
            item.setData(Data("secret".utf8), for: .passwordManagerHint)
            return X11SelectionContents(item: item)
        }
        #expect(X11SelectionContents.maximumUnknownTargets == 16)
        let unknown = contents.targets.filter { $0.hasPrefix("application/x-huddle-") }
        #expect(unknown == (0..<16).map { "application/x-huddle-\($0)" })
        #expect(
            contents.targets.filter { !$0.hasPrefix("application/x-huddle-") } == [
                "TARGETS", "TIMESTAMP", "UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "STRING", "TEXT",
                "public.utf8-plain-text", "text/html", "public.html", "x-kde-passwordManagerHint",
            ]
        )
        #expect(contents.answer(for: "text/html")?.data == Data("<b>hi</b>".utf8))
        #expect(contents.answer(for: "application/x-huddle-15")?.data == Data([1]))
        #expect(contents.answer(for: "application/x-huddle-16") == nil)
        #expect(contents.answer(for: "application/x-huddle-999") == nil)
    }

    /// The catalogue matches MIME spellings loosely (any case, spaces and quotes dropped), so a peer can send one
    /// known type under thousands of distinct spellings; each spelling would be an atom of its own.
    @Test("500 spellings of a known type count as unknown names: 16 of them are offered")
    func thousandsOfSpellingsOfAKnownType() async throws {
        let contents = try await offPool {
            var representations: [PasteboardItem.Representation] = []
            for index in 0..<500 {
                let spelling = "text/html" + String(repeating: " ", count: index + 1)
                representations.append(.init(type: PasteboardType(spelling), data: Data("<i>\(index)</i>".utf8)))
            }
            return X11SelectionContents(item: PasteboardItem(representations))
        }
        let bound = X11SelectionContents.maximumUnknownTargets
        #expect(contents.targets.filter { $0.hasPrefix("text/html ") }.count == bound)
        #expect(contents.targets.count == 2 + 1 + bound)
        #expect(contents.answer(for: "text/html")?.data == Data("<i>0</i>".utf8))
    }
}

extension DisplayServerTests {
    @Suite(
        "X11 atoms for items with many types, against Xvfb",
        .tags(.real, .displayServer),
        .serialized,
        .timeLimit(.minutes(2)),
        .enabled(if: XvfbServer.canRun, XvfbServer.skipReason)
    )
    struct X11AtomBoundTests {
        /// Whether the X server has an atom of this name (XInternAtom with only_if_exists: None when it has not).
        static func serverHasAtom(_ name: String, display: String) throws -> Bool {
            let connection = try X11Connection(displayName: display)
            defer { connection.close() }
            return name.withCString { connection.lib.internAtom(connection.display, $0, 1) } != 0
        }

        @Test(
            "we copy an item with 2,000 unknown types: TARGETS lists 16 of them, and no atom exists for the rest",
            .timeLimit(.minutes(1))
        )
        func boundedAtoms() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let pasteboard = try X11Pasteboard(displayName: server.display)
            defer { pasteboard.release(.clipboard) }
            let item = try await offPool { itemWithUnknownTypes(2_000) }  // quadratic: off the cooperative pool
            try await pasteboard.write(item, to: .clipboard)
            let targets = String(
                decoding: try await server.run("xclip", ["-selection", "clipboard", "-o", "-t", "TARGETS"]),
                as: UTF8.self
            )
            .split(separator: "\n").map(String.init)
            let unknown = targets.filter { $0.hasPrefix("application/x-huddle-") }
            #expect(unknown == (0..<X11SelectionContents.maximumUnknownTargets).map { "application/x-huddle-\($0)" })
            #expect(targets.contains("UTF8_STRING"))
            #expect(try Self.serverHasAtom("application/x-huddle-0", display: server.display))
            #expect(try !Self.serverHasAtom("application/x-huddle-16", display: server.display))
            #expect(try !Self.serverHasAtom("application/x-huddle-1999", display: server.display))
        }
    }
}
