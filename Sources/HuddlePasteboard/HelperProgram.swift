import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a helper program (wl-copy, wl-paste, xdg-mime) and collects its output.
struct HelperProgram: Sendable {
    let path: String
    let environment: [String: String]

    /// The helper on `PATH`.
    ///
    /// - Throws: ``PasteboardError`` `.helperMissing` naming the program and the package that has it.
    init(_ name: String, package: String, environment: [String: String]) throws {
        let directories = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        guard
            let path = directories.map({ "\($0)/\(name)" }).first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            throw PasteboardError(.helperMissing, "\(name) is not installed (it is in the \(package) package)")
        }
        self.path = path
        self.environment = environment
    }

    /// Runs the helper to completion, feeding `input` to its standard input.
    ///
    /// - Parameter detaches: the helper leaves a background process behind (`wl-copy`), which would hold output
    ///   pipes open for its whole life: its output then goes to /dev/null and only the exit status is kept.
    /// - Returns: its standard output, and its standard error when it failed.
    func run(
        _ arguments: [String],
        input: Data? = nil,
        detaches: Bool = false
    ) throws -> (status: Int32, output: Data, error: String) {
        if detaches { return (try self.runDetaching(arguments, input: input ?? Data()), Data(), "") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: self.path)
        process.arguments = arguments
        process.environment = self.environment
        let output = Pipe()
        let errors = Pipe()
        let stdin = Pipe()
        Self.closeOnExec(output, errors, stdin)
        process.standardOutput = detaches ? FileHandle.nullDevice : output
        process.standardError = detaches ? FileHandle.nullDevice : errors
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        try? output.fileHandleForWriting.close()
        try? errors.fileHandleForWriting.close()
        let box = UncheckedBox(errors)
        let errorText = Thread.detachedResult { box.value.fileHandleForReading.readDataToEndOfFile() }
        if let input {
            try? stdin.fileHandleForWriting.write(contentsOf: input)
            try? stdin.fileHandleForWriting.close()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data, String(decoding: errorText.wait(), as: UTF8.self))
    }

    /// Runs a helper that forks a background process, with `posix_spawn` rather than `Process`: Foundation
    /// learns of a child's exit through a descriptor the child inherits, which the background process would keep.
    /// The child gets `input` on standard input, /dev/null for output, and none of our other descriptors.
    private func runDetaching(_ arguments: [String], input: Data) throws -> Int32 {
        guard let pipe = closeOnExecPipe() else { throw PasteboardError.storage("pipe", errno: errno) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe.read, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        addCloseOtherDescriptors(&actions)
        let argv: [UnsafeMutablePointer<CChar>?] = ([self.path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = self.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, self.path, &actions, nil, argv, envp)
        close(pipe.read)
        guard status == 0 else {
            close(pipe.write)
            throw PasteboardError.storage("cannot start \(self.path)", errno: status)
        }
        let writer = FileHandle(fileDescriptor: pipe.write, closeOnDealloc: true)
        try? writer.write(contentsOf: input)
        try? writer.close()
        var exit: Int32 = 0
        while waitpid(pid, &exit, 0) < 0 && errno == EINTR {}
        return (exit & 0x7F) == 0 ? (exit >> 8) & 0xFF : 128 + (exit & 0x7F)
    }

    /// Marks pipes close-on-exec, so helpers started by other threads meanwhile do not inherit them and keep them
    /// open (the child's own standard streams are dup2'd, which clears the flag).
    private static func closeOnExec(_ pipes: Pipe...) {
        for pipe in pipes {
            _ = fcntl(pipe.fileHandleForReading.fileDescriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        }
    }

    /// Starts the helper and returns it running, its standard output readable line by line.
    func start(_ arguments: [String]) throws -> (process: Process, output: FileHandle) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: self.path)
        process.arguments = arguments
        process.environment = self.environment
        let output = Pipe()
        Self.closeOnExec(output)
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, output.fileHandleForReading)
    }
}

extension Thread {
    /// Runs `body` on a new thread; `wait()` on the result blocks until it returned.
    static func detachedResult<T: Sendable>(_ body: @escaping @Sendable () -> T) -> ThreadResult<T> {
        let result = ThreadResult<T>()
        let thread = Thread { result.set(body()) }
        thread.start()
        return result
    }
}

/// A value computed on another thread.
final class ThreadResult<T: Sendable>: @unchecked Sendable {
    // Written once before `ready` is signalled, read only after waiting on it.
    private var value: T?
    private let ready = DispatchSemaphore(value: 0)

    func set(_ value: T) {
        self.value = value
        self.ready.signal()
    }

    func wait() -> T {
        self.ready.wait()
        self.ready.signal()
        return self.value!
    }
}
