import Foundation
import Glibc
import HuddlePasteboard
import HuddleTestSupport
import Testing

/// The `huddle` executable built beside the test bundle (`swift build --build-tests` builds it too).
enum HuddleBinary {
    static let path: String? = {
        if let path = ProcessInfo.processInfo.environment["HUDDLE_BIN"] { return path }
        guard let runner = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return nil
        }
        let candidate = URL(fileURLWithPath: runner).deletingLastPathComponent().appendingPathComponent("huddle").path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }()

    static let canRun = ProcessInfo.processInfo.environment["CI"] == "true" || (path != nil && XvfbServer.canRun)

    static func require() throws -> String {
        guard let path else { throw TestFailure("the huddle executable was not built (swift build --build-tests)") }
        return path
    }
}

/// Runs `huddle` with a private runtime directory (named pasteboards) and display.
func huddle(
    _ arguments: [String],
    display: String? = nil,
    runtime: URL,
    input: Data? = nil
) async throws -> (status: Int32, output: Data, error: String) {
    let path = try HuddleBinary.require()
    var environment = ["XDG_RUNTIME_DIR": runtime.path, "XDG_DATA_HOME": runtime.path + "/data"]
    environment["DISPLAY"] = display ?? ""
    let fixed = environment
    let result = try await offPool { try runProcess(path, arguments, environment: fixed, input: input) }
    return (result.status, result.output, String(decoding: result.error, as: UTF8.self))
}

extension DisplayServerTests {
    @Suite(
        "The huddle pb and huddle url commands, against Xvfb and xclip",
        .tags(.real, .displayServer),
        .timeLimit(.minutes(2)),
        .enabled(
            if: HuddleBinary.canRun,
            "needs the huddle executable, Xvfb and xclip; with CI=true these fail instead"
        )
    )
    struct CLITests {
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-cli-\(UUID().uuidString)")

        @Test("pb copy returns at once (a background owner serves); xclip pastes text and PNG; pb paste reads xclip's")
        func copyAndPaste() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            defer { try? FileManager.default.removeItem(at: self.runtime) }
            let copied = try await huddle(
                ["pb", "copy"],
                display: server.display,
                runtime: self.runtime,
                input: Data("héllo\n".utf8)
            )
            #expect(copied.status == 0, "\(copied.error)")
            #expect(try await server.run("xclip", ["-selection", "clipboard", "-o"]) == Data("héllo\n".utf8))
            let types = try await huddle(["pb", "types"], display: server.display, runtime: self.runtime)
            #expect(String(decoding: types.output, as: UTF8.self).hasPrefix("UTF8_STRING\ntext/plain;charset=utf-8\n"))

            let png = pngLikeData(bytes: 300_000)
            let file = self.runtime.appendingPathComponent("in.png")
            try FileManager.default.createDirectory(at: self.runtime, withIntermediateDirectories: true)
            try png.write(to: file)
            #expect(
                try await huddle(["pb", "copy", file.path], display: server.display, runtime: self.runtime).status == 0
            )
            #expect(try await server.run("xclip", ["-selection", "clipboard", "-o", "-t", "image/png"]) == png)

            let owner = try await XclipOwner(
                server: server,
                target: "image/png",
                data: png.prefix(1000),
                pasteboard: X11Pasteboard(displayName: server.display)
            )
            defer { owner.stop() }
            let pasted = try await huddle(
                ["pb", "paste", "--type", "image/png"],
                display: server.display,
                runtime: self.runtime
            )
            #expect(pasted.status == 0)
            #expect(pasted.output == png.prefix(1000))
            let missing = try await huddle(
                ["pb", "paste", "--type", "text/html"],
                display: server.display,
                runtime: self.runtime
            )
            #expect(missing.status == 1)
            #expect(missing.error.contains("does not offer text/html (it offers: image/png)"), "\(missing.error)")
        }

        @Test("pb watch --json writes each change as one line at once, into a pipe")
        func watchStreams() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let path = try HuddleBinary.require()
            let watch = try StreamingProcess(path, ["pb", "watch", "--json"], environment: ["DISPLAY": server.display])
            defer { watch.stop() }
            try await watch.untilThread(named: "huddle-x11watch")  // it has subscribed to the clipboard's changes
            let pasteboard = try X11Pasteboard(displayName: server.display)
            let first = try await XclipOwner(
                server: server,
                target: "UTF8_STRING",
                data: Data("first".utf8),
                pasteboard: pasteboard
            )
            let line1 = try await watch.line(timeout: .seconds(5))
            first.stop()
            _ = try await watch.line(timeout: .seconds(5))  // the owner went away
            let second = try await XclipOwner(
                server: server,
                target: "UTF8_STRING",
                data: Data("second".utf8),
                pasteboard: pasteboard
            )
            defer { second.stop() }
            let line3 = try await watch.line(timeout: .seconds(5))
            let object1 = try JSONSerialization.jsonObject(with: Data(line1.utf8)) as? [String: Any]
            let object3 = try JSONSerialization.jsonObject(with: Data(line3.utf8)) as? [String: Any]
            #expect(object1?["text"] as? String == "first")
            #expect(object1?["sequence"] as? Int == 1)
            #expect(object3?["text"] as? String == "second")
            #expect(object3?["sequence"] as? Int == 3)
        }

        @Test("named pasteboards hand an item between two processes; read-and-clear; list; clear")
        func namedHandOff() async throws {
            defer { try? FileManager.default.removeItem(at: self.runtime) }
            let store = NamedPasteboardStore(environment: [
                "XDG_RUNTIME_DIR": self.runtime.path, "XDG_DATA_HOME": self.runtime.path + "/data",
            ])
            let copied = try await huddle(
                ["pb", "copy", "--name", "com.example.x", "--type", "image/png"],
                runtime: self.runtime,
                input: Data([1, 2, 3])
            )
            #expect(copied.status == 0, "\(copied.error)")
            #expect(try store.read(name: "com.example.x") == PasteboardItem(type: "image/png", data: Data([1, 2, 3])))
            try store.write(PasteboardItem(text: "from the test"), name: "back")
            let list = try await huddle(["pb", "list"], runtime: self.runtime)
            let listing = String(decoding: list.output, as: UTF8.self)
            #expect(listing.contains("back") && listing.contains("com.example.x") && listing.contains("image/png"))
            let taken = try await huddle(["pb", "paste", "--name", "back", "--clear"], runtime: self.runtime)
            #expect(taken.output == Data("from the test".utf8))
            #expect(throws: PasteboardError.self) { try store.read(name: "back") }
            #expect(try await huddle(["pb", "clear", "--name", "com.example.x"], runtime: self.runtime).status == 0)
            #expect(try await huddle(["pb", "clear", "--name", "com.example.x"], runtime: self.runtime).status == 1)
            #expect(try store.list().isEmpty)
        }

        @Test("url encode, decode and bad input: round trip by the command line, exit 64 with a message")
        func urlCommands() async throws {
            defer { try? FileManager.default.removeItem(at: self.runtime) }
            let encoded = try await huddle(
                ["url", "encode", "--type", "text/html"],
                runtime: self.runtime,
                input: Data("<b>x</b>".utf8)
            )
            let url = String(decoding: encoded.output, as: UTF8.self).trimmingCharacters(in: .newlines)
            #expect(url == "huddle:item?type=text%2Fhtml&data=PGI-eDwvYj4")
            #expect(try await huddle(["url", "decode", url], runtime: self.runtime).output == Data("<b>x</b>".utf8))
            let big = pngLikeData(bytes: 200_000)
            let reference = try await huddle(
                ["url", "encode", "--name", "big", "--clear"],
                runtime: self.runtime,
                input: big
            )
            let referenceURL = String(decoding: reference.output, as: UTF8.self).trimmingCharacters(in: .newlines)
            #expect(referenceURL == "huddle:item?name=big&clear=1")
            #expect(try await huddle(["url", "decode", referenceURL], runtime: self.runtime).output == big)
            let gone = try await huddle(["url", "decode", referenceURL], runtime: self.runtime)
            #expect(gone.status == 1 && gone.error.contains("no pasteboard named \"big\""))
            let tooBig = try await huddle(["url", "encode"], runtime: self.runtime, input: big)
            #expect(tooBig.status == 65 && tooBig.error.contains("named pasteboard"))
            let malformed = try await huddle(["url", "decode", "huddle:item?type=a&data=*"], runtime: self.runtime)
            #expect(malformed.status == 64)
            #expect(malformed.error.contains("not valid base64url"))
            let badName = try await huddle(["pb", "paste", "--name", "../etc"], runtime: self.runtime)
            #expect(badName.status == 64 && badName.error.contains("invalid pasteboard name"))
            let noDisplay = try await huddle(["pb", "types"], runtime: self.runtime)
            #expect(noDisplay.status == 69 && noDisplay.error.contains("neither DISPLAY (X11) nor WAYLAND_DISPLAY"))
        }
    }
}

/// A child whose standard output is read line by line while it runs; killed by pid at the end.
final class StreamingProcess: Sendable {
    let pid: pid_t
    private let output: Int32

    init(_ path: String, _ arguments: [String], environment: [String: String]) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw TestFailure("pipe failed") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }  // dup2 in the child clears it for its stdout
        self.pid = try spawn(path, arguments, environment: environment, quiet: false, stdout: fds[1])
        close(fds[1])
        self.output = fds[0]
    }

    /// The next line, waiting up to `timeout` (no buffering on our side: one byte at a time).
    func line(timeout: Duration) async throws -> String {
        let fd = self.output
        return try await offPool {
            var bytes: [UInt8] = []
            var pollfds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                guard poll(&pollfds, 1, 50) > 0 else { continue }
                var byte: UInt8 = 0
                guard read(fd, &byte, 1) == 1 else { break }
                if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
                bytes.append(byte)
            }
            throw TestFailure("no line within \(timeout) (got \(bytes.count) bytes)")
        }
    }

    /// Waits until the child runs a thread named `name` (cut to 15 bytes, as the kernel keeps it).
    ///
    /// Nothing tells this process when a child starts a thread, so this is a bounded retry of a probe of
    /// `/proc/<pid>/task`: every 5 ms, for at most 30 s.
    func untilThread(named name: String) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !self.threadNames.contains(String(name.prefix(15))) {
            guard ContinuousClock.now < deadline, !hasExited(self.pid) else {
                throw TestFailure("no thread \(name) in process \(self.pid): \(self.threadNames)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    private var threadNames: [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(self.pid)/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/\(self.pid)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    func stop() {
        killChild(self.pid)
        close(self.output)
    }
}
