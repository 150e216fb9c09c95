import Foundation
import HuddleBase
import HuddleWire
import NIOConcurrencyHelpers

/// The SHA-256 of each file to send, which a LocalSend offer carries (docs/localsend.md, "Sending"): worked out
/// once per version of a file — its path, size and modification time — and kept, so that the hashing can start
/// while the device is still being found (``LocalSendService/prepareToSend(files:)``) and a PIN asked again
/// does not hash a gigabyte again.
final class LocalSendFileDigests: Sendable {
    /// A version of a file: another size or modification time is another file.
    struct Version: Hashable {
        var path: String
        var size: UInt64
        var modified: Date

        init(of url: URL) throws {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            path = url.standardizedFileURL.path
            size = attributes[.size] as? UInt64 ?? 0
            modified = attributes[.modificationDate] as? Date ?? .distantPast
        }
    }

    private let work = NIOLockedValueBox<[Version: Task<String, any Error>]>([:])

    /// Starts hashing `url` unless it is under way or done; unreadable files are left to the send to report.
    func start(_ url: URL) {
        guard let version = try? Version(of: url) else { return }
        _ = task(for: version, url)
    }

    /// The file's size and SHA-256 (lowercase hex), from the work already done when there is some.
    func digest(of url: URL) async throws -> (size: UInt64, sha256: String) {
        let version = try Version(of: url)
        let running = task(for: version, url)
        do {
            let sha256 = try await withTaskCancellationHandler {
                try await running.value
            } onCancel: {
                running.cancel()
            }
            return (version.size, sha256)
        } catch {
            // A failed or cancelled hash is not kept: the next send tries again.
            work.withLockedValue { if $0[version] == running { $0[version] = nil } }
            throw error
        }
    }

    /// Stops every hash under way and forgets them all (the files went elsewhere, or the service stops).
    func cancelAll() {
        let all = work.withLockedValue { work in
            defer { work = [:] }
            return Array(work.values)
        }
        for task in all { task.cancel() }
    }

    var count: Int { work.withLockedValue { $0.count } }

    private func task(for version: Version, _ url: URL) -> Task<String, any Error> {
        work.withLockedValue { work in
            if let running = work[version] { return running }
            let running = Task {
                let (digest, size) = try await FileDigest.sha256(ofFileAt: url)
                guard size == version.size else { throw LocalSendError.fileChanged(url.lastPathComponent) }
                return Hex.encode(digest)
            }
            work[version] = running
            return running
        }
    }
}
