import Foundation
import Glibc
import Synchronization
import Testing

/// A private X server for one test: `Xvfb :N -nolisten tcp` on a display number no one else uses, killed by pid.
final class XvfbServer: Sendable {
    let display: String
    private let pid: pid_t

    /// Whether the X tests can run: Xvfb and xclip are installed. With `CI=true` they run anyway, and fail.
    static let canRun =
        ProcessInfo.processInfo.environment["CI"] == "true" || (which("Xvfb") != nil && which("xclip") != nil)
    static let skipReason: Comment =
        "needs Xvfb and xclip (apt-get install xvfb xclip); with CI=true these tests fail instead"

    /// Display numbers handed out in this process, so parallel tests never pick the same one.
    private static let nextOffset = Mutex(0)

    /// Starts a server on a display number unique to this run and waits until it accepts connections.
    ///
    /// The number is derived from the pid and a per-process counter, skipping numbers whose lock file or socket
    /// exists; if Xvfb still loses a race for it, the next number is tried.
    init() throws {
        guard let xvfb = which("Xvfb") else { throw TestFailure("Xvfb is not installed (apt-get install xvfb)") }
        // Killing a server while one of our connections still writes to it raises SIGPIPE (libxcb writes without
        // MSG_NOSIGNAL); the tests want the I/O error path, not the default action of ending the test process.
        signal(SIGPIPE, SIG_IGN)
        for _ in 0..<20 {
            let offset = Self.nextOffset.withLock { value in
                defer { value += 1 }
                return value
            }
            let number = 100 + (Int(getpid()) % 400) * 16 + offset % 16 + (offset / 16) * 7001
            let socket = "/tmp/.X11-unix/X\(number)"
            if FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock")
                || FileManager.default.fileExists(atPath: socket)
            {
                continue
            }
            let pid = try spawn(
                xvfb,
                [":\(number)", "-nolisten", "tcp", "-noreset", "-screen", "0", "320x240x24"],
                quiet: true
            )
            let deadline = ContinuousClock.now + .seconds(10)
            var status: Int32 = 0
            while waitpid(pid, &status, WNOHANG) == 0 {
                if Self.accepts(socket) {
                    self.pid = pid
                    self.display = ":\(number)"
                    return
                }
                if ContinuousClock.now > deadline {
                    killChild(pid)
                    throw TestFailure("Xvfb :\(number) did not accept connections within 10 s")
                }
                usleep(5_000)
            }
        }
        throw TestFailure("no free X display number for Xvfb")
    }

    /// Whether a Unix socket accepts a connection (the server is listening).
    private static func accepts(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    deinit { self.stop() }

    /// Kills the server (by its pid) and reaps it.
    func stop() {
        guard kill(self.pid, SIGTERM) == 0 else { return }
        var status: Int32 = 0
        waitpid(self.pid, &status, 0)
    }

    /// Runs a client with DISPLAY set to this server and returns its standard output.
    func run(
        _ tool: String,
        _ arguments: [String],
        input: Data? = nil,
        timeout: Duration = .seconds(20)
    ) async throws -> Data {
        let display = self.display
        return try await offPool {
            try runTool(tool, arguments, environment: ["DISPLAY": display], input: input, timeout: timeout)
        }
    }

    /// Starts a server off the cooperative pool.
    static func launch() async throws -> XvfbServer {
        try await offPool { try XvfbServer() }
    }

    /// Starts a long-lived client (`xclip -i` that stays to serve) and returns its pid; the caller kills it.
    func start(_ tool: String, _ arguments: [String]) throws -> pid_t {
        guard let path = which(tool) else { throw TestFailure("\(tool) is not installed") }
        return try spawn(path, arguments, environment: ["DISPLAY": self.display], quiet: true)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
