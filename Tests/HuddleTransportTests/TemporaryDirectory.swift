import Foundation
import Testing

/// A directory of its own under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init(_ label: String = #function) throws {
        let name = "huddle-\(label.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString)"
        url = FileManager.default.temporaryDirectory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// The permission bits of `url`.
    static func mode(of url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return try #require(attributes[.posixPermissions] as? NSNumber).intValue & 0o777
    }

    static func setMode(_ mode: Int, of url: URL) throws {
        try FileManager.default.setAttributes([.posixPermissions: NSNumber(value: mode)], ofItemAtPath: url.path)
    }

    /// The names in `url` that are left-over temporary files of atomic writes.
    static func temporaryFiles(in url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".tmp") }
    }
}
