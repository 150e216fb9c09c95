import Foundation
import HuddleTestSupport
import Testing

/// What the data-directory tests check of the files in a scratch directory.
extension ScratchDirectory {
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
