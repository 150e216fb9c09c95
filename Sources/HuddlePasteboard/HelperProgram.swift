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
    /// - Returns: its standard output, and its standard error when it failed.
    func run(_ arguments: [String], input: Data? = nil) throws -> (status: Int32, output: Data, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: self.path)
        process.arguments = arguments
        process.environment = self.environment
        let output = Pipe()
        let errors = Pipe()
        let stdin = Pipe()
        Self.closeOnExec(output, errors, stdin)
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
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
