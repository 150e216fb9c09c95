import Foundation

/// The programs some tests hand their output to: `zbarimg` (Debian's zbar-tools) to decode the PNG files, python3
/// to inflate them with zlib. A test that needs one runs when the program is on PATH, and also under CI=true,
/// where a missing program fails it instead of skipping it (`scripts/test` installs both).
enum ExternalTool {
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// The full path of a program on PATH.
    static func path(of name: String) -> String? {
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in searchPath.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Whether a test that needs `name` should run: when it is installed, or under CI (where it then fails).
    static func shouldRun(_ name: String) -> Bool { Self.isCI || Self.path(of: name) != nil }

    /// The path of `name`, or a thrown error that says how to install it.
    static func require(_ name: String, package: String) throws -> String {
        guard let path = Self.path(of: name) else {
            throw ToolMissing(description: "\(name) is not on PATH: install \(package) (scripts/test does as root)")
        }
        return path
    }

    struct ToolMissing: Error, CustomStringConvertible { let description: String }

    /// Runs a program to the end and returns its exit status and standard output; standard error is discarded. The
    /// wait happens on a thread of its own: blocking one of the few threads Swift's tasks share would starve every
    /// other test running beside it (on two cores there are two).
    static func run(_ path: String, _ arguments: [String]) async throws -> (status: Int32, output: [UInt8]) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try Self.runWaiting(path, arguments) })
            }
        }
    }

    private static func runWaiting(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: [UInt8]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, Array(bytes))
    }

    /// Writes `bytes` to a new file in the temporary directory, runs `body` with its path, then removes it.
    static func withTemporaryFile<Result>(
        _ bytes: [UInt8],
        suffix: String,
        _ body: (String) async throws -> Result
    ) async throws -> Result {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("huddle-qr-\(UUID().uuidString)\(suffix)").path
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw ToolMissing(description: "cannot write \(path)")
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body(path)
    }
}
