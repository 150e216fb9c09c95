import Foundation
import HuddleErrors
import HuddleTransport

/// The daemon's JSON files (the outbox, the history): sorted keys, dates in ISO 8601, written whole in one step
/// (``AtomicFile``), mode 0600.
enum DaemonJSONFile {
    /// Writes `value` to `file`; `what` names it in the error.
    ///
    /// - Throws: ``DaemonError/Code/storage`` naming the file.
    static func write(_ value: some Encodable, to file: URL, what: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        do {
            try AtomicFile.write(Array(try encoder.encode(value)), to: file, mode: 0o600)
        } catch {
            throw DaemonError(.storage, "cannot write \(what) \(file.path): \(error)")
        }
    }

    /// The value in `bytes`, dates in ISO 8601.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: Data) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: bytes)
    }
}
