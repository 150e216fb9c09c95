import Foundation
import Glibc
import HuddlePasteboard

/// The full path of a program on PATH.
func which(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        let candidate = "\(directory)/\(name)"
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
}

/// Starts a program in the background with `posix_spawn` (so only we reap it); its output goes to /dev/null when
/// `quiet`.
///
/// `stdout`, when given, becomes the child's standard output (also when `quiet`, which then silences standard
/// error only). No other descriptor of ours is inherited, not even one another thread has just opened without
/// close-on-exec yet: a long-lived child (wl-copy's background owner) holding the write end of a helper's output
/// pipe would keep that helper's reader waiting for ever.
func spawn(
    _ path: String,
    _ arguments: [String],
    environment: [String: String] = [:],
    quiet: Bool,
    stdout: Int32? = nil
) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    if let stdout {
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
    } else if quiet {
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    }
    if quiet { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
    addCloseOtherDescriptors(&actions)
    let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    // Threads of the test runner block some signals; a child inherits that mask, so reset it (and the handlers),
    // or SIGTERM would never reach the child.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var pid: pid_t = 0
    let status = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
    guard status == 0 else { throw TestFailure("cannot start \(path): \(String(cString: strerror(status)))") }
    return pid
}

/// Runs a program to completion with a time limit and returns its standard output.
///
/// - Throws: when it exits with a failure status (the message carries its standard error) or times out (then it
///   is killed by pid).
func runTool(
    _ tool: String,
    _ arguments: [String],
    environment: [String: String] = [:],
    input: Data? = nil,
    timeout: Duration = .seconds(20)
) throws -> Data {
    let result = try runProcess(tool, arguments, environment: environment, input: input, timeout: timeout)
    guard result.status == 0 else {
        throw TestFailure(
            "\(tool) \(arguments.joined(separator: " ")) exited \(result.status): "
                + String(decoding: result.error, as: UTF8.self)
        )
    }
    return result.output
}

/// Runs a program to completion with a time limit; returns its exit status, standard output and standard error.
func runProcess(
    _ tool: String,
    _ arguments: [String],
    environment: [String: String] = [:],
    input: Data? = nil,
    timeout: Duration = .seconds(20)
) throws -> (status: Int32, output: Data, error: Data) {
    guard let path = tool.hasPrefix("/") ? tool : which(tool) else { throw TestFailure("\(tool) is not installed") }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    let errors = Pipe()
    let stdin = Pipe()
    // Foundation's pipes are inherited by every child started meanwhile (Xvfb by a parallel test), which would
    // keep them open: close-on-exec, cleared by dup2 for this child's own standard streams.
    for pipe in [output, errors, stdin] {
        _ = fcntl(pipe.fileHandleForReading.fileDescriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
    }
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = input == nil ? FileHandle.nullDevice : stdin
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    let collected = CollectedOutput()
    let reader = Thread {
        collected.set(
            output.fileHandleForReading.readDataToEndOfFile(),
            errors.fileHandleForReading.readDataToEndOfFile()
        )
    }
    reader.start()
    if let input {
        stdin.fileHandleForWriting.write(input)
        try? stdin.fileHandleForWriting.close()
    }
    let milliseconds = Int(timeout / .milliseconds(1))
    if exited.wait(timeout: .now() + .milliseconds(milliseconds)) == .timedOut {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        throw TestFailure("\(tool) \(arguments.joined(separator: " ")) timed out")
    }
    process.waitUntilExit()
    let (out, err) = collected.wait()
    return (process.terminationStatus, out, err)
}

/// Output read on another thread, handed back once complete.
private final class CollectedOutput: @unchecked Sendable {
    // Guarded by `ready`: written once before the signal, read after the wait.
    private var value = (Data(), Data())
    private let ready = DispatchSemaphore(value: 0)

    func set(_ out: Data, _ err: Data) {
        self.value = (out, err)
        self.ready.signal()
    }

    func wait() -> (Data, Data) {
        self.ready.wait()
        return self.value
    }
}

/// The first line a child writes into `fd` (a pipe or FIFO), read as soon as it is written: the child's own
/// signal that it is ready. Nil when the child exits, or closes its end, without writing a line.
///
/// - Throws: when no line came within `limit`.
func readLine(from fd: Int32, writtenBy pid: pid_t, within limit: Duration) throws -> String? {
    var bytes: [UInt8] = []
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        // Wakes at once when data comes; the slice only bounds how late a child's exit is noticed.
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&descriptor, 1, 100) > 0 {
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = read(fd, &buffer, buffer.count)
            if count == 0 { return nil }
            if count > 0 {
                bytes += buffer[..<count]
                if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                    return String(decoding: bytes[..<newline], as: UTF8.self)
                }
                continue
            }
        }
        if hasExited(pid) { return nil }
    }
    throw TestFailure("no line from process \(pid) within \(limit)")
}

/// `readLine(from:writtenBy:within:)` on the FIFO at `path`.
func readLine(fromFIFO path: String, writtenBy pid: pid_t, within limit: Duration) throws -> String? {
    // Non-blocking, so that opening does not wait for a writer; poll does not report a hang-up before the first
    // writer has come and gone.
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { throw TestFailure("cannot open \(path): errno \(errno)") }
    defer { close(fd) }
    return try readLine(from: fd, writtenBy: pid, within: limit)
}

/// Whether a child of ours has exited (it is a zombie, not yet reaped, or gone); it is not reaped here, so its pid
/// stays ours for `killChild`.
func hasExited(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return true }
    return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
}

/// Kills a child we started, by pid, and reaps it.
func killChild(_ pid: pid_t) {
    guard kill(pid, SIGTERM) == 0 else { return }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
}

/// Runs blocking work (a child process, a server start) on a thread of its own, so tests running in parallel never
/// starve Swift's small cooperative pool, on which the watchers' consumers run.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
