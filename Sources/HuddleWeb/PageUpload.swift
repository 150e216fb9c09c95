import Foundation
import HuddleWire
import Hummingbird
import NIOCore

/// A file the page sends (docs/web.md, "Sending"): its body streamed to `uploads/ID/NAME` (owner-only), then sent
/// through the daemon like `huddle send`; removed once sent, kept while queued (the outbox reads it when the
/// device is back).
struct PageUpload {
    let backend: PageBackend

    /// A name a file may be written under: one path component, no `.`/`..`, no NUL or slash, at most 255 bytes.
    static func fileName(_ given: String?) -> String? {
        guard let given, !given.isEmpty, given.utf8.count <= 255, given != ".", given != "..",
            !given.contains("/"), !given.contains("\u{0}")
        else { return nil }
        return given
    }

    func receive(_ request: Request, name: String, to recipient: String) async throws -> PageSendResult {
        let folder = backend.uploads.appendingPathComponent(Hex.randomToken(byteCount: 8))
        let manager = FileManager.default
        try manager.createDirectory(at: backend.uploads, withIntermediateDirectories: true, attributes: nil)
        try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: backend.uploads.path)
        try manager.createDirectory(at: folder, withIntermediateDirectories: false, attributes: nil)
        let file = folder.appendingPathComponent(name)
        do {
            guard manager.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown)
            }
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            for try await chunk in request.body {
                try handle.write(contentsOf: chunk.readableBytesView)
            }
        } catch {
            try? manager.removeItem(at: folder)
            throw error
        }
        let result = await backend.send(file.path, recipient)
        if !result.queued { try? manager.removeItem(at: folder) }
        return result
    }
}
