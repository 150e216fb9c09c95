import Foundation
import Glibc
import HuddlePasteboard
import HuddleTestSupport
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

    /// Starts sway and waits until it serves clients: its configuration's `exec` runs once the compositor is up,
    /// and writes the display's name into a FIFO that this reads.
    init() throws {
        guard let sway = which("sway") else { throw TestFailure("sway is not installed (apt-get install sway)") }
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-way-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let ready = runtime + "/ready"
        guard mkfifo(ready, 0o600) == 0 else { throw TestFailure("mkfifo \(ready): errno \(errno)") }
        let config = runtime + "/sway.conf"
        _ = FileManager.default.createFile(
            atPath: config,
            contents: Data("exec sh -c 'echo \"$WAYLAND_DISPLAY\" > \(ready)'\n".utf8)
        )
        var command = [sway, "-c", config]
        if getuid() == 0 {
            guard let setpriv = which("setpriv") else { throw TestFailure("setpriv is needed to run sway as root") }
            for path in [runtime, config, ready] { chown(path, 65534, 65534) }
            command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] + command
        }
        chmod(runtime, 0o700)
        let environment = [
            "XDG_RUNTIME_DIR": runtime, "HOME": runtime, "WLR_BACKENDS": "headless",
            "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman", "WAYLAND_DISPLAY": "", "DISPLAY": "",
        ]
        self.pid = try spawn(command[0], Array(command.dropFirst()), environment: environment, quiet: true)
        self.runtime = runtime
        do {
            guard let name = try readLine(fromFIFO: ready, writtenBy: self.pid, within: .seconds(30)) else {
                throw TestFailure("sway exited before it served clients")
            }
            self.socket = name.hasPrefix("/") ? name : runtime + "/" + name
        } catch {
            killChild(self.pid)
            try? FileManager.default.removeItem(atPath: runtime)
            throw error
        }
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
        .tags(.real, .displayServer),
        .serialized,
        .timeLimit(.minutes(2)),
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
            try await pasteboard.write(PasteboardItem(text: "ours"), to: .clipboard)
            try await offPool { try sway.copy(Data("theirs".utf8)) }
            // wl-paste reports the selections in the order they were set (and, if it starts late, the one it
            // finds, which is ours or theirs): had our write come back, it would come before theirs. Some
            // versions also report the empty start state.
            let change = try await changes.first { !$0.isEmpty }
            #expect(change.item.string == "theirs", "own write echoed: \(changes.changes.map(\.item))")
        }
    }
}
