import Foundation

/// How many sends to one peer overlap: up to 16 files and 8 MiB at once, so many small files do not wait two
/// round trips each, while a file of 8 MiB or more, or a directory (which pipelines its own files), goes alone
/// and keeps the connection to itself.
package struct SendWindow {
    package static let maximumFiles = 16
    package static let maximumBytes: UInt64 = 8 << 20

    package private(set) var files = 0
    package private(set) var bytes: UInt64 = 0

    package init() {}

    /// A regular file's size; a directory (or anything unreadable) weighs the whole window.
    package static func weight(of path: String) -> UInt64 {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes[.size] as? NSNumber)?.uint64Value
        else { return maximumBytes }
        return min(size, maximumBytes)
    }

    /// The weight of each path; a path named twice weighs the whole window the second time, so the two sends
    /// never overlap (the receiver would refuse the second while the first is under way).
    package static func weights(of paths: [String]) -> [UInt64] {
        var seen = Set<String>()
        return paths.map { path in
            let first = seen.insert(URL(fileURLWithPath: path).standardizedFileURL.path).inserted
            return first ? weight(of: path) : maximumBytes
        }
    }

    package static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Whether a send of `weight` bytes may start now: always when nothing is under way, never beside a send
    /// that weighs the whole window.
    package func admits(_ weight: UInt64) -> Bool {
        files == 0 || (files < Self.maximumFiles && bytes < Self.maximumBytes && bytes + weight < Self.maximumBytes)
    }

    package mutating func started(_ weight: UInt64) {
        files += 1
        bytes += weight
    }

    package mutating func finished(_ weight: UInt64) {
        files -= 1
        bytes -= weight
    }
}

/// Results that arrive in any order, handed out in index order: the report of a path waits for the paths before it.
package struct OrderedResults<Value> {
    private var waiting: [Int: Value] = [:]
    private var next = 0

    package init() {}

    package mutating func add(_ value: Value, at index: Int) { waiting[index] = value }

    /// The results from the next index on that have all arrived, in order.
    package mutating func takeReady() -> [(Int, Value)] {
        var ready: [(Int, Value)] = []
        while let value = waiting.removeValue(forKey: next) {
            ready.append((next, value))
            next += 1
        }
        return ready
    }
}
