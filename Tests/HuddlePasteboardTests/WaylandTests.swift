import Foundation
import Glibc
import HuddlePasteboard
import Testing

/// A headless sway compositor for one test (wlroots' headless backend, no GPU), stopped by its pid.
///
/// sway refuses to run as root, so as root it runs as `nobody` through `setpriv`; its runtime directory is a fresh
/// temporary one, and clients reach it by the socket's absolute path in `WAYLAND_DISPLAY`.
final class HeadlessSway: Sendable {
    let runtime: String
    let socket: String
    private let pid: pid_t

    static let canRun =
        ProcessInfo.processInfo.environment["CI"] == "true"
        || (which("sway") != nil && which("wl-copy") != nil && (getuid() != 0 || which("setpriv") != nil))

    init() throws {
        guard let sway = which("sway") else { throw TestFailure("sway is not installed (apt-get install sway)") }
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-way-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let config = runtime + "/sway.conf"
        _ = FileManager.default.createFile(atPath: config, contents: Data())
        var command = [sway, "-c", config]
        if getuid() == 0 {
            guard let setpriv = which("setpriv") else { throw TestFailure("setpriv is needed to run sway as root") }
            for path in [runtime, config] { chown(path, 65534, 65534) }
            command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] + command
        }
        chmod(runtime, 0o700)
        let environment = [
            "XDG_RUNTIME_DIR": runtime, "HOME": runtime, "WLR_BACKENDS": "headless",
            "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman", "WAYLAND_DISPLAY": "", "DISPLAY": "",
        ]
        self.pid = try spawn(command[0], Array(command.dropFirst()), environment: environment, quiet: true)
        self.runtime = runtime
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: runtime)) ?? []
            if let name = entries.first(where: { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }) {
                self.socket = runtime + "/" + name
                break
            }
            guard ContinuousClock.now < deadline else {
                killChild(self.pid)
                throw TestFailure("sway did not create its socket within 10 s")
            }
            usleep(10_000)
        }
        usleep(200_000)  // the socket is bound just before the compositor serves it
    }

    /// The environment a client needs.
    var environment: [String: String] {
        [
            "WAYLAND_DISPLAY": self.socket, "XDG_RUNTIME_DIR": self.runtime,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
    }

    /// Runs `wl-copy` (which forks a background owner that keeps its output open) with `data` on its standard
    /// input, and waits for the foreground process only.
    func copy(_ data: Data, arguments: [String] = []) throws {
        let file = self.runtime + "/input-\(UUID().uuidString)"
        try data.write(to: URL(fileURLWithPath: file))
        defer { unlink(file) }
        let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
        let pid = try spawn(
            "/bin/sh",
            ["-c", "wl-copy \(quoted) < '\(file)'"],
            environment: self.environment,
            quiet: true
        )
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        guard status == 0 else { throw TestFailure("wl-copy failed: status \(status)") }
    }

    func stop() {
        killChild(self.pid)
        try? FileManager.default.removeItem(atPath: self.runtime)
    }
}

extension DisplayServerTests {
    @Suite(
        "Wayland clipboard through wl-clipboard, against a headless sway",
        .serialized,
        .enabled(if: HeadlessSway.canRun, "needs sway and wl-clipboard; with CI=true these tests fail instead")
    )
    struct WaylandTests {
        @Test("we copy; wl-paste lists and pastes it. wl-copy copies a PNG; we read it byte for byte")
        func roundTrips() async throws {
            let sway = try await offPool { try HeadlessSway() }
            defer { sway.stop() }
            let pasteboard = try WaylandPasteboard(environment: sway.environment)
            try await pasteboard.write(PasteboardItem(text: "Grüße ✓"), to: .clipboard)
            let pasted = try await offPool { try runTool("wl-paste", ["--no-newline"], environment: sway.environment) }
            #expect(pasted == Data("Grüße ✓".utf8))
            #expect(try await pasteboard.data(for: .utf8PlainText, in: .clipboard) == Data("Grüße ✓".utf8))

            let png = pngLikeData(bytes: 200_000)
            try await offPool { try sway.copy(png, arguments: ["--type", "image/png"]) }
            #expect(try await pasteboard.types(in: .clipboard).contains("image/png"))
            #expect(try await pasteboard.data(for: .png, in: .clipboard) == png)
        }

        @Test("the watcher sees wl-copy's change, not our own write")
        func watch() async throws {
            let sway = try await offPool { try HeadlessSway() }
            defer { sway.stop() }
            let pasteboard = try WaylandPasteboard(environment: sway.environment)
            let changes = ChangeCollector(try pasteboard.changes(of: .clipboard))
            defer { changes.stop() }
            try await Task.sleep(for: .milliseconds(500))
            let initial = changes.count  // wl-paste --watch may report the (empty) start state
            try await pasteboard.write(PasteboardItem(text: "ours"), to: .clipboard)
            try await Task.sleep(for: .milliseconds(500))
            #expect(changes.count == initial, "own write echoed")
            try await offPool { try sway.copy(Data("theirs".utf8)) }
            let (change, _) = try await changes.change(initial)
            #expect(change.item.string == "theirs")
        }
    }
}
