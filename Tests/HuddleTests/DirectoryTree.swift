import Crypto
import Foundation

/// A directory tree as tests compare it: every relative path, with a file's SHA-256 or "dir" for a directory.
struct DirectoryTree: Equatable, CustomStringConvertible {
    var entries: [String: String] = [:]

    init(_ root: URL) throws {
        try visit(root, relative: "")
    }

    private mutating func visit(_ directory: URL, relative: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let url = directory.appendingPathComponent(name)
            let path = relative.isEmpty ? name : relative + "/" + name
            let type = try FileManager.default.attributesOfItem(atPath: url.path)[.type] as? FileAttributeType
            switch type {
            case .typeDirectory:
                entries[path] = "dir"
                try visit(url, relative: path)
            case .typeSymbolicLink:
                entries[path] = "link"
            default:
                entries[path] = SHA256.hash(data: try Data(contentsOf: url)).map { String(format: "%02x", $0) }.joined()
            }
        }
    }

    var description: String { entries.keys.sorted().map { "\($0): \(entries[$0]!.prefix(8))" }.joined(separator: ", ") }

    /// Writes `files` (relative path → size) under `root`, each with its own pseudo-random content.
    static func make(_ files: [String: Int], under root: URL) throws {
        for (index, (path, size)) in files.sorted(by: { $0.key < $1.key }).enumerated() {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            _ = try TransferTests.file(
                size,
                named: url.lastPathComponent,
                in: url.deletingLastPathComponent(),
                seed: UInt8(truncatingIfNeeded: index + 1)
            )
        }
    }
}
