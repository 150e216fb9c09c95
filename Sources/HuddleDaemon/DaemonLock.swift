import Foundation

#if canImport(Glibc)
import Glibc
import HuddleErrors
#endif

/// One daemon per data directory: an exclusive `flock(2)` on `daemon.lock`, held while the process lives and let
/// go by the kernel when it ends however it ends (so a killed daemon leaves nothing to clean up). The file holds
/// the holder's process ID, for the message a second daemon prints.
public final class DaemonLock: Sendable {
    let descriptor: Int32

    /// Takes the lock at `path`.
    ///
    /// - Throws: ``DaemonError/Code/alreadyRunning`` naming the holder's process ID, or
    ///   ``DaemonError/Code/storage`` when the file cannot be opened.
    public init(path: String) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw DaemonError(.storage, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var bytes = [UInt8](repeating: 0, count: 32)
            let count = pread(fd, &bytes, bytes.count, 0)
            close(fd)
            let holder = count > 0 ? String(decoding: bytes.prefix(count), as: UTF8.self) : ""
            let pid = Int(holder.trimmingCharacters(in: .whitespacesAndNewlines))
            throw DaemonError(
                .alreadyRunning,
                "a daemon already runs for this data directory" + (pid.map { " (process \($0))" } ?? "")
            )
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, text, text.count, 0)
        descriptor = fd
    }

    deinit { close(descriptor) }
}
