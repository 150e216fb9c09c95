import Foundation
import HuddlePasteboard
import HuddleTestSupport
import Testing

/// Bytes that start like a PNG file and continue with a deterministic pattern, so every byte can be checked.
func pngLikeData(bytes count: Int, seed: UInt8 = 7) -> Data {
    var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    data.reserveCapacity(count)
    var state = UInt32(seed) | 0x9E37_0000
    while data.count < count {
        state = state &* 1_664_525 &+ 1_013_904_223
        data.append(UInt8(truncatingIfNeeded: state >> 24))
    }
    return data
}

extension DisplayServerTests {
    @Suite(
        "X11 clipboard against a real X server (Xvfb) with xclip on the other side",
        .tags(.real, .displayServer),
        .timeLimit(.minutes(2)),
        .enabled(if: XvfbServer.canRun, XvfbServer.skipReason)
    )
    struct X11RoundTripTests {
        @Test("we copy text, HTML and PNG at once; xclip lists every type and pastes each one byte for byte")
        func weCopyXclipPastes() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let pasteboard = try X11Pasteboard(displayName: server.display)
            defer { pasteboard.release(.clipboard) }
            let text = "Grüße, 世界 ✓"
            let png = pngLikeData(bytes: 4096)
            var item = PasteboardItem(text: text)
            item.setData(Data("<b>Grüße</b>".utf8), for: .html)
            item.setData(png, for: .png)
            try await pasteboard.write(item, to: .clipboard)

            let targets = String(
                decoding: try await server.run("xclip", ["-selection", "clipboard", "-o", "-t", "TARGETS"]),
                as: UTF8.self
            )
            .split(separator: "\n").map(String.init)
            for expected in ["TARGETS", "UTF8_STRING", "text/plain;charset=utf-8", "STRING", "text/html", "image/png"] {
                #expect(targets.contains(expected), "TARGETS lists \(expected): \(targets)")
            }
            #expect(
                try await server.run("xclip", ["-selection", "clipboard", "-o", "-t", "UTF8_STRING"]) == Data(text.utf8)
            )
            #expect(
                try await server.run("xclip", ["-selection", "clipboard", "-o", "-t", "text/html"])
                    == Data("<b>Grüße</b>".utf8)
            )
            #expect(try await server.run("xclip", ["-selection", "clipboard", "-o", "-t", "image/png"]) == png)
            // STRING is ISO Latin-1: ü and ß survive as single bytes, 世界 and ✓ become '?'.
            let latin1 = try await server.run("xclip", ["-selection", "clipboard", "-o", "-t", "STRING"])
            #expect(latin1 == Data([0x47, 0x72, 0xFC, 0xDF, 0x65, 0x2C, 0x20, 0x3F, 0x3F, 0x20, 0x3F]))
        }

        @Test("xclip copies (text, HTML, PNG in turn); we list the type and paste the exact bytes")
        func xclipCopiesWePaste() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let pasteboard = try X11Pasteboard(displayName: server.display)
            let cases: [(String, PasteboardType, Data)] = [
                ("UTF8_STRING", .utf8PlainText, Data("naïve café ☕\n".utf8)),
                ("text/html", .html, Data("<p>hi</p>".utf8)),
                ("image/png", .png, pngLikeData(bytes: 70_000)),
                ("application/x-huddle-test", PasteboardType("application/x-huddle-test"), Data([0, 1, 2, 255])),
            ]
            for (target, type, data) in cases {
                let owner = try await XclipOwner(server: server, target: target, data: data, pasteboard: pasteboard)
                defer { owner.stop() }
                let types = try await pasteboard.types(in: .clipboard)
                #expect(types.contains(PasteboardType(target)), "\(target) on offer: \(types)")
                #expect(try await pasteboard.data(for: type, in: .clipboard) == data, "\(target) pasted byte for byte")
            }
        }

        @Test("PRIMARY is separate from CLIPBOARD")
        func primarySelection() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let pasteboard = try X11Pasteboard(displayName: server.display)
            defer {
                pasteboard.release(.primary)
                pasteboard.release(.clipboard)
            }
            try await pasteboard.write(PasteboardItem(text: "selected"), to: .primary)
            try await pasteboard.write(PasteboardItem(text: "copied"), to: .clipboard)
            #expect(try await server.run("xclip", ["-selection", "primary", "-o"]) == Data("selected".utf8))
            #expect(try await server.run("xclip", ["-selection", "clipboard", "-o"]) == Data("copied".utf8))
            #expect(try await pasteboard.data(for: .utf8PlainText, in: .primary) == Data("selected".utf8))
        }

        @Test("asking for a type that is not offered names the types that are")
        func typeNotOffered() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let pasteboard = try X11Pasteboard(displayName: server.display)
            defer { pasteboard.release(.clipboard) }
            try await pasteboard.write(PasteboardItem(type: .png, data: pngLikeData(bytes: 100)), to: .clipboard)
            let error = try await #require(throws: PasteboardError.self) {
                try await pasteboard.data(for: .jpeg, in: .clipboard)
            }
            #expect(error.code == .typeNotOffered)
            #expect(error.message.contains("image/png"), "\(error.message)")
        }
    }
}

/// `xclip -quiet -i` serving one item in the foreground, so its pid is the owner; killed by pid.
struct XclipOwner {
    let pid: pid_t
    let file: URL

    init(
        server: XvfbServer,
        target: String,
        data: Data,
        selection: String = "clipboard",
        pasteboard: X11Pasteboard
    ) async throws {
        self.file = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-xclip-\(UUID().uuidString)")
        try data.write(to: self.file)
        self.pid = try server.start("xclip", ["-selection", selection, "-quiet", "-t", target, "-i", self.file.path])
        // Wait until xclip owns the selection and offers the target. xclip says nothing when it has taken the
        // selection, so this is a bounded retry of a probe (asking for the selection's targets): every 5 ms, for
        // at most 30 s.
        let deadline = ContinuousClock.now + .seconds(30)
        while (try? await pasteboard.types(in: selection == "primary" ? .primary : .clipboard))?
            .contains(PasteboardType(target)) != true
        {
            guard ContinuousClock.now < deadline else {
                self.stop()
                throw TestFailure("xclip did not take the \(selection) selection")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func stop() {
        killChild(self.pid)
        try? FileManager.default.removeItem(at: self.file)
    }
}
