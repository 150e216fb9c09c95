import Foundation
import HuddleDaemon
import HuddleWire
import Hummingbird
import NIOCore

/// A file the page sends (docs/web.md, "Sending"): its body streamed to `uploads/ID/NAME` (owner-only), then sent
/// through the daemon like `huddle send`, the answer telling how far it is as it goes; removed once sent, kept while
/// queued (the outbox reads it when the device is back).
struct PageUpload {
    let backend: PageBackend

    /// A name a file may be written under: one path component, no `.`/`..`, no NUL or slash, at most 255 bytes.
    static func fileName(_ given: String?) -> String? {
        guard let given, !given.isEmpty, given.utf8.count <= 255, given != ".", given != "..",
            !given.contains("/"), !given.contains("\u{0}")
        else { return nil }
        return given
    }

    /// Writes the request's body to a new owner-only folder of uploads as `name`; returns the file.
    func store(_ request: Request, name: String) async throws -> URL {
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
        return file
    }

    /// Sends the stored `file` to `recipient`, each step of its progress and then the result as one JSON line
    /// (newline-delimited JSON: `{"progress":{"completed","total"}}` lines, then ``PageSendResult``), and removes
    /// it unless it was queued.
    func send(_ file: URL, to recipient: String) -> AsyncStream<String> {
        let (lines, sink) = AsyncStream.makeStream(of: String.self)
        let backend = self.backend
        Task {
            let result = await backend.send(file.path, recipient) { step in
                if let line = Self.line(ProgressLine(progress: step)) { sink.yield(line) }
            }
            if !result.queued { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            if let line = Self.line(result) { sink.yield(line) }
            sink.finish()
        }
        return lines
    }

    struct ProgressLine: Encodable {
        var progress: ControlProgress
    }

    static func line(_ value: some Encodable) -> String? {
        (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) + "\n" }
    }
}
