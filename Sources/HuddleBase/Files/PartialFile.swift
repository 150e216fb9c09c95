package import Foundation

// `stat` and its fields: which module the compiler credits with them depends on the order modules load in (the
// C header is shared), and member import visibility then wants that module imported.
#if canImport(Glibc)
import Glibc
#endif
#if canImport(CoreFoundation)
import CoreFoundation
#endif

/// The hidden partial file a file is received into (`.NAME.<16 hex digits>.huddle-partial` beside its final
/// name): opened safely in a directory others may write in, cleared of stale ones, and given its final name
/// without overwriting anything. See `docs/security.md`.
package enum PartialFile {
    /// Opens (or makes, mode 0600) the partial file for writing, positioned at the end of what it holds of use:
    /// all of it, or nothing when it is longer than `limit`. Never through a link (`O_NOFOLLOW`), and only a
    /// regular file of this user's with no other name — in a directory others may write in, a name planted there
    /// (a link, a hard link to someone's file, a file of theirs) is refused and left as it is.
    /// - Returns: the handle, the bytes it holds, their SHA-256 (read from the open file), and which file it is.
    package static func openForWriting(
        _ partial: URL,
        limit: UInt64
    ) throws
        -> (FileHandle, UInt64, FileHasher, FileIdentity)
    {
        let name = partial.lastPathComponent
        let descriptor = open(partial.path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
            throw FileTransferError("cannot write the partial file \(name): \(reason)")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
            info.st_nlink == 1
        else {
            throw FileTransferError(
                "\(name) is not a partial file of this user's (a regular file with one name); not touched"
            )
        }
        var have = UInt64(info.st_size)
        if have > limit {
            try handle.truncate(atOffset: 0)
            have = 0
        }
        var hasher = FileHasher()
        try hasher.update(reading: descriptor, length: have)
        try handle.seek(toOffset: have)
        return (handle, have, hasher, FileIdentity(info))
    }

    /// Removes the partial files an earlier transfer of `name` left with other content (the file changed since,
    /// so no offer will ever resume them): they would stay hidden in the directory for good. Only names of the
    /// exact form `.NAME.<16 hex digits>.huddle-partial` go, never one a transfer is writing; links are unlinked,
    /// not followed.
    package static func removeStale(of name: String, keeping partial: URL, in directory: URL, inUse: Set<String>) {
        let (prefix, suffix) = (".\(name).", ".huddle-partial")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for candidate in names where candidate.hasPrefix(prefix) && candidate.hasSuffix(suffix) {
            let key = candidate.dropFirst(prefix.count).dropLast(suffix.count)
            guard key.count == 16, key.allSatisfy(\.isHexDigit), candidate != partial.lastPathComponent,
                !inUse.contains(candidate)
            else { continue }
            unlink(directory.appendingPathComponent(candidate).path)
        }
    }

    /// Renames `partial` to `name` in `directory`, or `name (2)`, `name (3)`, … — never over an existing file.
    /// When `identity` is given, the name must have gone to that file: a partial file swapped for another (or a
    /// link) since it was written is not kept.
    package static func keep(
        _ partial: URL,
        as name: String,
        in directory: URL,
        identity: FileIdentity? = nil
    ) throws -> URL {
        for candidate in FreeNames(name) {
            let target = directory.appendingPathComponent(candidate)
            // link() fails if the target exists, so a file appearing meanwhile is never replaced.
            if link(partial.path, target.path) == 0 {
                if let identity, FileIdentity(lstatOf: target.path) != identity {
                    unlink(target.path)
                    throw FileTransferError("the partial file was replaced while it was written")
                }
                unlink(partial.path)
                return target
            }
            guard errno == EEXIST else { throw FileTransferError(String(cString: strerror(errno))) }
        }
        throw FileTransferError("no free name for \(name)")
    }
}
