import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file operations behind ``NamedPasteboardStore``: 0700 directories, 0600 files, lock files, atomic
/// replacement (temporary file, `fsync`, `rename`, `fsync` of the directory).
enum NamedPasteboardFile {
    static let suffix = ".hpb"

    static func path(_ directory: URL, _ name: String) -> String {
        directory.appendingPathComponent(name + Self.suffix).path
    }

    static func exists(directory: URL, name: String) -> Bool {
        access(Self.path(directory, name), F_OK) == 0
    }

    /// Makes the directory and its parents, mode 0700, and refuses one that another user owns or others can
    /// write to.
    static func prepare(_ directory: URL) throws {
        do {
            try FileManager.default.createDirectory(
                at: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw PasteboardError(.storage, "cannot create \(directory.path): \(error.localizedDescription)")
        }
        var info = stat()
        guard stat(directory.path, &info) == 0 else { throw PasteboardError.storage(directory.path, errno: errno) }
        guard info.st_uid == getuid() else {
            throw PasteboardError(.storage, "\(directory.path) belongs to another user: refusing to use it")
        }
        if info.st_mode & 0o077 != 0 { chmod(directory.path, 0o700) }
    }

    /// Runs `body` holding a `flock` on `.<name>.lock` in the directory.
    @discardableResult
    static func withLock<T>(directory: URL, name: String, exclusive: Bool, _ body: () throws -> T) throws -> T {
        try Self.prepare(directory)
        let lockPath = directory.appendingPathComponent(".\(name).lock").path
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw PasteboardError.storage(lockPath, errno: errno) }
        defer { close(fd) }  // closing releases the lock
        while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            guard errno == EINTR else { throw PasteboardError.storage("flock \(lockPath)", errno: errno) }
        }
        return try body()
    }

    static func writeAtomically(_ data: Data, directory: URL, name: String) throws {
        let target = Self.path(directory, name)
        let temporary = directory.appendingPathComponent(".\(name).\(getpid()).\(UInt32.random(in: .min ... .max)).tmp")
            .path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw PasteboardError.storage(temporary, errno: errno) }
        var ok = false
        defer {
            if !ok { unlink(temporary) }
        }
        do {
            defer { close(fd) }
            try data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = systemWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw PasteboardError.storage("write \(temporary)", errno: errno)
                    }
                    offset += written
                }
            }
            guard fsync(fd) == 0 else { throw PasteboardError.storage("fsync \(temporary)", errno: errno) }
        }
        guard rename(temporary, target) == 0 else { throw PasteboardError.storage("rename to \(target)", errno: errno) }
        ok = true
        let directoryFD = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)  // makes the rename itself durable
            close(directoryFD)
        }
    }

    static func read(directory: URL, name: String) throws -> Data {
        let path = Self.path(directory, name)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PasteboardError(.notFound, "no pasteboard named \"\(name)\"")
        }
        return data
    }

    @discardableResult
    static func remove(directory: URL, name: String) throws -> Bool {
        if unlink(Self.path(directory, name)) == 0 { return true }
        guard errno == ENOENT else { throw PasteboardError.storage("remove \(name)", errno: errno) }
        return false
    }

    /// The names stored in a directory (lock and temporary files left out).
    static func names(in directory: URL) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return entries.filter { !$0.hasPrefix(".") && $0.hasSuffix(Self.suffix) }.map {
            String($0.dropLast(Self.suffix.count))
        }
    }
}
