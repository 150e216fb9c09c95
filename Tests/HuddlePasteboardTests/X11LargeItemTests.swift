import Foundation
import HuddlePasteboard
import HuddleTestSupport
import Testing

extension DisplayServerTests {
    @Suite(
        "X11 large items (INCR) and owners exiting, against Xvfb and xclip",
        .tags(.real, .displayServer),
        .timeLimit(.minutes(2)),
        .enabled(if: XvfbServer.canRun, XvfbServer.skipReason)
    )
    struct X11LargeItemTests {
        /// 12 MiB: far above one request (256 KiB), so INCR both ways. Items this large are made off the cooperative
        /// pool (``offPool(_:)``): seconds of byte-by-byte work on a test's task starve the process's other tests.
        static let size = 12 << 20

        @Test("we copy a 12 MiB PNG; xclip pastes it byte for byte (we send by INCR)")
        func largeCopy() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let pasteboard = try X11Pasteboard(displayName: server.display)
            defer { pasteboard.release(.clipboard) }
            let png = try await offPool { pngLikeData(bytes: Self.size, seed: 3) }
            try await pasteboard.write(PasteboardItem(type: .png, data: png), to: .clipboard)
            let pasted = try await server.run(
                "xclip",
                ["-selection", "clipboard", "-o", "-t", "image/png"],
                timeout: .seconds(60)
            )
            #expect(pasted.count == png.count)
            #expect(pasted == png)
        }

        @Test("xclip copies a 12 MiB PNG; we paste it byte for byte (we receive by INCR)")
        func largePaste() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let pasteboard = try X11Pasteboard(displayName: server.display)
            let png = try await offPool { pngLikeData(bytes: Self.size, seed: 5) }
            let owner = try await XclipOwner(server: server, target: "image/png", data: png, pasteboard: pasteboard)
            defer { owner.stop() }
            let pasted = try await pasteboard.data(for: .png, in: .clipboard)
            #expect(pasted.count == png.count)
            #expect(pasted == png)
        }

        @Test("a size limit stops a large read with a clear error")
        func readLimit() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let pasteboard = try X11Pasteboard(displayName: server.display, maximumItemBytes: 1 << 20)
            defer { pasteboard.release(.clipboard) }
            let png = try await offPool { pngLikeData(bytes: 3 << 20) }
            try await pasteboard.write(PasteboardItem(type: .png, data: png), to: .clipboard)
            let error = try await #require(throws: PasteboardError.self) {
                try await pasteboard.data(for: .png, in: .clipboard)
            }
            #expect(error.code == .tooLarge)
        }

        @Test("xclip exits: the clipboard is empty and reading says so")
        func xclipOwnerExits() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let pasteboard = try X11Pasteboard(displayName: server.display)
            let owner = try await XclipOwner(
                server: server,
                target: "UTF8_STRING",
                data: Data("bye".utf8),
                pasteboard: pasteboard
            )
            #expect(try await pasteboard.data(for: .utf8PlainText, in: .clipboard) == Data("bye".utf8))
            try await offPool { owner.stop() }
            let error = try await #require(throws: PasteboardError.self) {
                try await pasteboard.data(for: .utf8PlainText, in: .clipboard)
            }
            #expect(error.code == .empty)
            #expect(error.message.contains("CLIPBOARD"))
        }

        @Test("our owner goes away (released, or replaced by xclip): xclip sees no data, or xclip's own")
        func ourOwnerExits() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let pasteboard = try X11Pasteboard(displayName: server.display)
            try await pasteboard.write(PasteboardItem(text: "ours"), to: .clipboard)
            #expect(try await server.run("xclip", ["-selection", "clipboard", "-o"]) == Data("ours".utf8))
            pasteboard.release(.clipboard)
            await #expect(throws: (any Error).self) {
                try await server.run("xclip", ["-selection", "clipboard", "-o"])
            }

            try await pasteboard.write(PasteboardItem(text: "ours again"), to: .clipboard)
            let owner = try await XclipOwner(
                server: server,
                target: "UTF8_STRING",
                data: Data("theirs".utf8),
                pasteboard: pasteboard
            )
            defer { owner.stop() }
            // Returns: xclip took the selection and our owner ended.
            try await offPool { pasteboard.waitUntilReplaced(.clipboard) }
            #expect(try await pasteboard.data(for: .utf8PlainText, in: .clipboard) == Data("theirs".utf8))
        }
    }
}
