public import Foundation

/// A directory of its own under the system's temporary directory.
public struct ScratchDirectory: Sendable {
    public let url: URL

    /// Makes the directory; `label` (letters and digits kept) helps find a left-over one.
    public init(_ label: String = #function) throws {
        let name = "huddle-test-\(label.filter { $0.isLetter || $0.isNumber }.prefix(40))-\(UUID().uuidString)"
        url = FileManager.default.temporaryDirectory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    /// Removes the directory and everything in it, making it writable first where a test took that away.
    public func remove() {
        if let walker = FileManager.default.enumerator(atPath: url.path) {
            for case let path as String in walker {
                chmod(url.appendingPathComponent(path).path, 0o700)
            }
        }
        chmod(url.path, 0o700)
        try? FileManager.default.removeItem(at: url)
    }

    public func appending(_ component: String) -> URL { url.appendingPathComponent(component) }
}
