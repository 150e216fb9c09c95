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
    ///
    /// With a `root` (the `/tmp/huddle-<uid>` fallback): the directory that holds `root` must be writable by nobody
    /// else or sticky, as `/tmp` is; `root` must be a real directory (`lstat`: a link is not followed) owned by this
    /// user with mode 0700 exactly; and each directory between `root` and `directory` is made and checked one at a
    /// time, so none is used that another user made or could replace.
    static func prepare(_ directory: URL, under root: URL?) throws {
        if let root, directory.pathComponents.starts(with: root.pathComponents) {
            try Self.checkBase(root.deletingLastPathComponent())
            var current = root
            try Self.makePrivate(current, exactly: true)
            for component in directory.pathComponents.dropFirst(root.pathComponents.count) {
                current.appendPathComponent(component, isDirectory: true)
                try Self.makePrivate(current, exactly: false)
            }
            return
        }
        var missing: [URL] = []
        var current = directory
        while current.path != "/", access(current.path, F_OK) != 0 {
            missing.append(current)
            current.deleteLastPathComponent()
        }
        for created in missing.reversed() { try Self.makePrivate(created, exactly: false) }
        var info = stat()
        guard stat(directory.path, &info) == 0 else { throw PasteboardError.storage(directory.path, errno: errno) }
        guard info.st_uid == geteuid() else {
            throw PasteboardError(.storage, "\(directory.path) belongs to another user: refusing to use it")
        }
        if info.st_mode & 0o077 != 0 { chmod(directory.path, 0o700) }
    }

    /// Makes `url` (mode 0700) unless it exists, then checks it without following a link: a directory of this
    /// user that nobody else can write to; with `exactly`, mode 0700 and nothing else.
    private static func makePrivate(_ url: URL, exactly: Bool) throws {
        let path = url.path
        let made = mkdir(path, 0o700) == 0
        guard made || errno == EEXIST else { throw PasteboardError.storage("cannot create \(path)", errno: errno) }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw PasteboardError.storage(path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw PasteboardError(.storage, "\(path) is not a directory (a symbolic link?): refusing to use it")
        }
        guard info.st_uid == geteuid() else {
            throw PasteboardError(
                .storage,
                "\(path) belongs to another user (uid \(info.st_uid)): refusing to use it"
            )
        }
        if made {
            chmod(path, 0o700)  // the umask may have taken bits away
            return
        }
        let mode = info.st_mode & 0o7777
        if exactly ? mode != 0o700 : mode & 0o022 != 0 {
            throw PasteboardError(
                .storage,
                "\(path) has mode \(String(mode, radix: 8)), not 700: refusing to use it"
            )
        }
    }

    /// The directory that holds the fallback (`/tmp`): others may not rename what is in it.
    private static func checkBase(_ url: URL) throws {
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw PasteboardError.storage(url.path, errno: errno) }
        guard info.st_uid == 0 || info.st_uid == geteuid() else {
            throw PasteboardError(.storage, "\(url.path) belongs to another user: refusing to use it")
        }
        guard info.st_mode & 0o022 == 0 || info.st_mode & S_ISVTX != 0 else {
            throw PasteboardError(
                .storage,
                "\(url.path) can be written by others and is not sticky: refusing to keep pasteboards in it"
            )
        }
    }

    /// Runs `body` holding a `flock` on `.<name>.lock` in the directory.
    @discardableResult
    static func withLock<T>(
        directory: URL,
        under root: URL?,
        name: String,
        exclusive: Bool,
        _ body: () throws -> T
    ) throws -> T {
        try Self.prepare(directory, under: root)
        let lockPath = directory.appendingPathComponent(".\(name).lock").path
        let fd = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
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
