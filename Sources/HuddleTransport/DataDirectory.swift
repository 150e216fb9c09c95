public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the device key and the trust store live, and the checks made before anything in it is trusted.
public enum DataDirectory {
    /// `$HUDDLE_HOME`, else `$XDG_DATA_HOME/huddle`, else `$HOME/.local/share/huddle`.
    ///
    /// The home directory in the password database is used only when `HOME` is unset or empty, so that
    /// `HOME=/x huddle id` uses `/x`. A relative `XDG_DATA_HOME` is ignored, as the XDG Base Directory
    /// Specification says.
    public static func resolve(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        passwordDatabaseHome: () -> String? = DataDirectory.passwordDatabaseHome
    ) -> URL {
        if let home = environment["HUDDLE_HOME"], !home.isEmpty { return URL(fileURLWithPath: home) }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data).appendingPathComponent("huddle")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? passwordDatabaseHome() ?? "/"
        return URL(fileURLWithPath: home).appendingPathComponent(".local/share/huddle")
    }

    /// The effective user's home directory in the password database.
    public static func passwordDatabaseHome() -> String? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        return buffer.withUnsafeMutableBufferPointer { buffer -> String? in
            guard getpwuid_r(geteuid(), &entry, buffer.baseAddress!, buffer.count, &found) == 0, found != nil,
                let directory = entry.pw_dir
            else { return nil }
            return String(cString: directory)
        }
    }

    /// Makes `directory` and the parents it lacks, each mode 0700, then checks it as ``check(_:)`` does.
    package static func prepare(_ directory: URL) throws(DataDirectoryError) {
        var missing: [String] = []
        var path = directory.standardizedFileURL.path
        var info = stat()
        while path != "/", lstat(path, &info) != 0 {
            guard errno == ENOENT else { throw .cannotCheck(path: path, errno: errno) }
            missing.append(path)
            path = (path as NSString).deletingLastPathComponent
        }
        for path in missing.reversed() {
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw .cannotCheck(path: path, errno: errno) }
            // Opened without following a link, so the mode is set on this directory and nothing else.
            let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { throw .cannotCheck(path: path, errno: errno) }
            defer { close(fd) }
            guard fstat(fd, &info) == 0 else { throw .cannotCheck(path: path, errno: errno) }
            guard info.st_uid == geteuid() else { throw .notOwned(path: path, owner: info.st_uid) }
            fchmod(fd, 0o700)  // the umask may have taken bits away
        }
        try check(directory)
    }

    /// Refuses a directory whose contents someone other than this user (or root) could change.
    ///
    /// - the directory belongs to this user, and neither its group nor others may write to it;
    /// - every directory above it belongs to this user or root, and others may not write to it unless it is sticky
    ///   (as `/tmp` is: there only the owner of an entry may rename or remove it);
    /// - a symbolic link on the way belongs to this user or root.
    package static func check(_ directory: URL) throws(DataDirectoryError) {
        let path = directory.standardizedFileURL.path
        let me = geteuid()
        var info = stat()
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            guard lstat(prefix, &info) == 0 else { throw .cannotCheck(path: prefix, errno: errno) }
            if info.st_mode & S_IFMT == S_IFLNK, info.st_uid != me, info.st_uid != 0 {
                throw .notOwned(path: prefix, owner: info.st_uid)
            }
        }
        guard let resolved = realpath(path, nil) else { throw .cannotCheck(path: path, errno: errno) }
        let real = String(cString: resolved)
        free(resolved)
        var chain = ["/"]
        for component in real.split(separator: "/") {
            chain.append((chain.count == 1 ? "" : chain.last!) + "/" + component)
        }
        for (index, current) in chain.enumerated() {
            guard lstat(current, &info) == 0 else { throw .cannotCheck(path: current, errno: errno) }
            let mode = Int(info.st_mode & 0o7777)
            if index == chain.count - 1 {
                guard info.st_mode & S_IFMT == S_IFDIR else { throw .notADirectory(path: current) }
                guard info.st_uid == me else { throw .notOwned(path: current, owner: info.st_uid) }
                guard mode & 0o022 == 0 else { throw .openToOthers(path: current, mode: mode) }
            } else {
                guard info.st_uid == me || info.st_uid == 0 else { throw .notOwned(path: current, owner: info.st_uid) }
                guard mode & 0o022 == 0 || mode & Int(S_ISVTX) != 0 else {
                    throw .openToOthers(path: current, mode: mode)
                }
            }
        }
    }
}

extension DataDirectory {
    /// Whether anything (even a dangling link) is at `url`.
    package static func exists(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0 || errno != ENOENT
    }

    /// Enough of an `lstat` of `file` and of its directory to tell that either changed. Atomic writes replace the
    /// file (a new inode), so a change shows even within one tick of the file system's clock.
    package static func stamp(of file: URL) -> [Int] {
        var stamp: [Int] = []
        var info = stat()
        if lstat(file.path, &info) == 0 {
            #if canImport(Darwin)
            let (modified, changed) = (info.st_mtimespec, info.st_ctimespec)
            #else
            let (modified, changed) = (info.st_mtim, info.st_ctim)
            #endif
            stamp = [
                Int(truncatingIfNeeded: info.st_dev), Int(truncatingIfNeeded: info.st_ino),
                Int(truncatingIfNeeded: info.st_size), Int(info.st_mode), Int(info.st_uid),
                Int(modified.tv_sec), Int(modified.tv_nsec), Int(changed.tv_sec), Int(changed.tv_nsec),
            ]
        }
        stamp.append(-1)
        if lstat(file.deletingLastPathComponent().path, &info) == 0 {
            stamp += [
                Int(truncatingIfNeeded: info.st_dev), Int(truncatingIfNeeded: info.st_ino), Int(info.st_mode),
                Int(info.st_uid),
            ]
        }
        return stamp
    }

    /// The bytes of `file`, or `nil` when there is none; opened without following a link, and read only when it
    /// is a regular file of this user with none of the permission bits `others` (by default: neither its group
    /// nor others may write it; a file holding a secret passes `0o077`, so that they may not read it either).
    package static func readPrivateFile(
        _ file: URL,
        refusing others: mode_t = 0o022
    ) throws(PrivateFileError) -> [UInt8]? {
        let fd = open(file.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw .cannotRead(errno: errno)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .cannotRead(errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile }
        guard info.st_uid == geteuid() else { throw .notOwned(owner: info.st_uid) }
        guard info.st_mode & others == 0 else { throw .openToOthers(mode: Int(info.st_mode & 0o7777)) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(errno: errno)
            }
            bytes += chunk[..<count]
        }
    }
}

/// Why ``DataDirectory/readPrivateFile(_:)`` did not read a file.
package enum PrivateFileError: Error, Hashable, CustomStringConvertible {
    case cannotRead(errno: Int32)
    case notARegularFile
    case notOwned(owner: uid_t)
    case openToOthers(mode: Int)

    package var description: String {
        switch self {
        case .cannotRead(let code): "cannot be read (\(String(cString: strerror(code))))"
        case .notARegularFile: "is not a regular file"
        case .notOwned(let owner): "belongs to uid \(owner), not to this user (uid \(geteuid()))"
        case .openToOthers(let mode) where mode & 0o022 == 0:
            "can be read by other users (mode \(String(mode, radix: 8)))"
        case .openToOthers(let mode): "can be written by other users (mode \(String(mode, radix: 8)))"
        }
    }
}

/// Why a data directory is not used.
public enum DataDirectoryError: Error, Hashable, Sendable, CustomStringConvertible {
    case notOwned(path: String, owner: uid_t)
    case openToOthers(path: String, mode: Int)
    case notADirectory(path: String)
    case cannotCheck(path: String, errno: Int32)

    public var description: String {
        switch self {
        case .notOwned(let path, let owner):
            "\(path) belongs to uid \(owner), not to this user (uid \(geteuid())): refusing to use it"
        case .openToOthers(let path, let mode):
            "\(path) can be written by other users (mode \(String(mode, radix: 8))): refusing to use it; "
                + "run: chmod go-w \(path)"
        case .notADirectory(let path): "\(path) is not a directory: refusing to use it"
        case .cannotCheck(let path, let code): "cannot check \(path): \(String(cString: strerror(code)))"
        }
    }
}
