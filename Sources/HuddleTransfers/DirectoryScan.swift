package import Foundation
package import HuddleBase
package import HuddleWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A directory as it will be offered: every directory and regular file below it, parents first and names in byte
/// order (so the same tree always gives the same manifest, which is what lets a later offer resume), each file
/// with its size and ``ResumeKey`` (its modification time and first and last MiB: a file is not read whole before
/// the offer; its SHA-256 is computed while it is sent).
///
/// Symbolic links are never followed and never sent — one pointing outside the tree would hand out files the
/// user did not choose — and neither are sockets, pipes or devices; their paths are listed in ``skipped``.
package struct DirectoryScan: Sendable {
    package private(set) var entries: [DirectoryEntry] = []
    /// The local file of each file entry, by entry index.
    package private(set) var files: [Int: URL] = [:]
    /// The size and modification time of each file entry when its key was made, by entry index: a file whose
    /// stamp differs when it is sent changed in between.
    package private(set) var stamps: [Int: FileStamp] = [:]
    /// The device and inode of each file entry as the scan saw it (`lstat`), by entry index: the file sent must be
    /// that one, not one swapped in under its path since (a link, which the scan would have skipped).
    package private(set) var identities: [Int: FileIdentity] = [:]
    package private(set) var skipped: [String] = []

    /// Walks `root` (which may itself be reached through a link: the user named it).
    package init(of root: URL) throws {
        let start = root.resolvingSymlinksInPath()
        guard Self.kind(of: start.path) == S_IFDIR else {
            throw FileTransferError("\(root.path) is not a directory")
        }
        try visit(start, relative: "")
    }

    private mutating func visit(_ directory: URL, relative: String) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted {
            $0.utf8.lexicographicallyPrecedes($1.utf8)
        }
        for name in names {
            let url = directory.appendingPathComponent(name)
            let path = relative.isEmpty ? name : relative + "/" + name
            var info = stat()
            let kind = lstat(url.path, &info) == 0 ? info.st_mode & S_IFMT : 0
            switch kind {
            case S_IFDIR:
                entries.append(DirectoryEntry(path: path, kind: .directory))
                try visit(url, relative: path)
            case S_IFREG:
                let (stamp, key) = try ResumeKey.of(file: url)
                files[entries.count] = url
                stamps[entries.count] = stamp
                identities[entries.count] = FileIdentity(info)
                entries.append(DirectoryEntry(path: path, kind: .file(size: stamp.size, key: key)))
            default:
                skipped.append(path)
            }
        }
    }

    /// The file type bits of `path` itself (`lstat`: a link is a link), or 0 when it cannot be read.
    package static func kind(of path: String) -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return info.st_mode & S_IFMT
    }
}
