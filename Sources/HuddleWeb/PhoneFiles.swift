import Foundation
import Hummingbird

/// The files the page offers to a phone (docs/web.md, "A phone"): uploaded by the page's script into
/// `uploads/phone-BATCH/NAME` (owner-only), one batch a code. Showing a code removes every batch but its own, so the
/// files of a code that is no longer shown do not stay on disk.
struct PhoneFiles {
    let uploads: URL

    /// A batch's name: 16 lower-case hex digits, as the script makes it.
    static func isBatch(_ text: String) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    func folder(_ batch: String) -> URL { uploads.appendingPathComponent("phone-" + batch) }

    /// Streams `request`'s body into the batch's file `name` (a name ``PageUpload/fileName(_:)`` allowed).
    func receive(_ request: Request, name: String, batch: String) async throws {
        let manager = FileManager.default
        let folder = folder(batch)
        try manager.createDirectory(at: uploads, withIntermediateDirectories: true, attributes: nil)
        try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: uploads.path)
        try manager.createDirectory(at: folder, withIntermediateDirectories: true, attributes: nil)
        let file = folder.appendingPathComponent(name)
        guard manager.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        for try await chunk in request.body { try handle.write(contentsOf: chunk.readableBytesView) }
    }

    /// The files of `batch` (none without one), oldest batches removed; nil when `batch` names none uploaded.
    func files(_ batch: String?) -> [URL]? {
        let manager = FileManager.default
        if let batch {
            guard Self.isBatch(batch), manager.fileExists(atPath: folder(batch).path) else { return nil }
        }
        let kept = batch.map { "phone-" + $0 }
        for old in (try? manager.contentsOfDirectory(atPath: uploads.path)) ?? []
        where old.hasPrefix("phone-") && Self.isBatch(String(old.dropFirst(6))) && old != kept {
            try? manager.removeItem(at: uploads.appendingPathComponent(old))
        }
        guard let batch else { return [] }
        let names = (try? manager.contentsOfDirectory(atPath: folder(batch).path)) ?? []
        return names.sorted().map { folder(batch).appendingPathComponent($0) }
    }
}
