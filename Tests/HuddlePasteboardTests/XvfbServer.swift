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
    /// exists; if Xvfb still loses a race for it (it exits), the next number is tried. Xvfb says when it is ready
    /// by writing its display number to the descriptor given with `-displayfd` (here a pipe on its standard
    /// output).
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
            if FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock")
                || FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)")
            {
                continue
            }
            if let pid = try Self.start(xvfb, display: number) {
                self.pid = pid
                self.display = ":\(number)"
                return
            }
        }
        throw TestFailure("no free X display number for Xvfb")
    }

    /// Starts Xvfb on display `number` and returns its pid once it is ready; nil when it exited first (the number
    /// was taken meanwhile).
    private static func start(_ xvfb: String, display number: Int) throws -> pid_t? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw TestFailure("pipe failed: errno \(errno)") }
        // dup2 in the child clears it for Xvfb's standard output. (Should a child started meanwhile by a parallel
        // test inherit the write end, Xvfb exiting is still noticed: readLine watches the pid too.)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(ends[0]) }
        let pid: pid_t
        do {
            pid = try spawn(
                xvfb,
                [":\(number)", "-displayfd", "1", "-nolisten", "tcp", "-noreset", "-screen", "0", "320x240x24"],
                quiet: true,
                stdout: ends[1]
            )
        } catch {
            close(ends[1])
            throw error
        }
        close(ends[1])
        let ready: String?
        do {
            ready = try readLine(from: ends[0], writtenBy: pid, within: .seconds(30))
        } catch {
            killChild(pid)
            throw TestFailure("Xvfb :\(number) was not ready within 30 s")
        }
        guard ready == "\(number)" else {
            killChild(pid)
            return nil
        }
        return pid
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
