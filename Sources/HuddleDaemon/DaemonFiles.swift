import Foundation
import HuddleErrors

/// What a daemon holds for its data directory while it runs: the lock, then the outbox (docs/daemon.md, "Files").
public enum DaemonFiles {
    /// Makes the data directory (0700) when missing, takes the lock and reads the outbox.
    ///
    /// - Throws: ``DaemonError`` (`alreadyRunning`, `storage`).
    public static func open(_ paths: DaemonPaths) throws -> (DaemonLock, OutboxStore) {
        let dataDirectory = (paths.lockFile as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(
                atPath: dataDirectory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw DaemonError(.storage, "cannot make the data directory \(dataDirectory): \(error)")
        }
        let lock = try DaemonLock(path: paths.lockFile)
        return (lock, try OutboxStore(file: URL(fileURLWithPath: paths.outboxFile)))
    }
}
