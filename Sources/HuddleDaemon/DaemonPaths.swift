import Crypto
public import Foundation
import HuddleWire

#if canImport(Glibc)
import Glibc
import HuddleErrors
#endif

/// Where a daemon for one data directory keeps its control socket and its lock (docs/daemon.md, "Files").
///
/// The socket lives in `$XDG_RUNTIME_DIR/huddle/` (`/tmp/huddle-UID/huddle/` when that is not set), named after
/// the data directory, so that a daemon per data directory can run and the command line finds the one that shares
/// its own. The lock lives in the data directory itself.
public struct DaemonPaths: Sendable, Equatable {
    /// The folder the socket is in: made owner-only, and refused when someone else owns it or may enter it.
    public let runtimeDirectory: String
    public let controlSocket: String
    public let lockFile: String
    public let outboxFile: String
    /// What was received (``HistoryStore``).
    public let historyFile: String

    /// The paths for `dataDirectory`, with `environment` (`XDG_RUNTIME_DIR`) and `uid` for the runtime folder.
    public init(dataDirectory: URL, environment: [String: String], uid: UInt32) {
        let base = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp/huddle-\(uid)"
        runtimeDirectory = base + "/huddle"
        let data = dataDirectory.standardizedFileURL.path
        let digest = SHA256.hash(data: Array(data.utf8)).prefix(8).hexString
        controlSocket = runtimeDirectory + "/daemon-\(digest).sock"
        lockFile = data + "/daemon.lock"
        outboxFile = data + "/outbox.json"
        historyFile = data + "/history.json"
    }

    /// The paths of this process's user and environment.
    public static func current(dataDirectory: URL) -> DaemonPaths {
        DaemonPaths(dataDirectory: dataDirectory, environment: ProcessInfo.processInfo.environment, uid: getuid())
    }

    /// Makes the runtime folder (and its parent, for the `/tmp` fallback) mode 0700 when missing.
    ///
    /// - Throws: ``DaemonError/Code/unsafeRuntimeDirectory`` when a folder on the way is another user's, is not a
    ///   folder, or lets others in: a socket there could be swapped for someone else's.
    public func makeRuntimeDirectory() throws {
        let parent = (runtimeDirectory as NSString).deletingLastPathComponent
        for folder in [parent, runtimeDirectory] {
            if mkdir(folder, 0o700) != 0 && errno != EEXIST {
                throw DaemonError(.unsafeRuntimeDirectory, "cannot make \(folder): \(String(cString: strerror(errno)))")
            }
            // Not followed when it is a link (attributesOfItem reads lstat(2)).
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder)
            guard attributes?[.type] as? FileAttributeType == .typeDirectory else {
                throw DaemonError(.unsafeRuntimeDirectory, "\(folder) is not a folder")
            }
            guard (attributes?[.ownerAccountID] as? NSNumber)?.uint32Value == getuid() else {
                throw DaemonError(.unsafeRuntimeDirectory, "\(folder) belongs to another user")
            }
            let mode = (attributes?[.posixPermissions] as? NSNumber)?.uint16Value ?? 0o777
            // XDG_RUNTIME_DIR itself is 0700 by its specification; the folder made here must be too.
            guard folder == parent || mode & 0o077 == 0 else {
                throw DaemonError(.unsafeRuntimeDirectory, "\(folder) is open to other users (chmod 700 it)")
            }
        }
    }
}
