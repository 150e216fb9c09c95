package import Foundation
package import HuddleBase
package import HuddleWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a received directory is built: a hidden staging directory in the target, named after the offer's name,
/// manifest digest and sending device so that the next offer of the same tree from the same device finds it.
///
/// ```
/// target/.photos.<digest>.<sender>.huddle-partial/   mode 0700, ours
///     sender       the sending device's ID (hex): staging is that device's alone
///     manifest     the offer's manifest as it came on the wire: what a later offer of a changed tree finds
///                  its unchanged files by (see ``earlierFiles()``)
///     tree/        the directory as offered; a file appears here only once its SHA-256 matched the sender's
///     parts/<n>    the bytes so far of file entry n
/// ```
///
/// Nothing from an earlier run counts before the current sender vouches for it: a file verified then goes back
/// to its part and is asked for at its end, so the sender hashes it and sends its SHA-256 (and no bytes of it).
/// Another device's staging directories are never read, even with the same manifest (whose resume keys any
/// peer that was sent the directory knows).
///
/// Every path is built from components ``TransferPath`` accepted, and every directory is made here or checked
/// with `lstat` to be a real directory (not a link), and files are opened with `O_NOFOLLOW`: nothing is written
/// outside the staging directory. When every file is verified, `tree` is renamed into the target under the
/// offered name, or `name (2)`, … — never over anything that exists.
package struct DirectoryStaging {
    package let offer: DirectoryOffer
    package let target: URL
    package let root: URL
    package var tree: URL { root.appendingPathComponent("tree") }
    package var parts: URL { root.appendingPathComponent("parts") }

    /// The part of staging names before the digest (see ``stem(of:)``).
    package let stem: String

    /// The sending device's ID, hex.
    package let sender: String

    /// Opens (or makes) the staging directory of `offer` from device `sender` in `target`. One that exists is
    /// used only when it is private — a real directory of this user's, mode 0700 — and kept for the same device:
    /// anyone else who could write in it could have put anything in its tree. (Where the file system does not
    /// keep modes, a run that finds its staging directory again is refused: remove it to start afresh.)
    package init(offer: DirectoryOffer, digest: String, sender: DeviceID, in target: URL) throws {
        self.offer = offer
        self.target = target
        stem = Self.stem(of: offer.name)
        self.sender = sender.bytes.hexString
        root = target.appendingPathComponent(Self.rootName(stem: stem, digest: digest, sender: self.sender))
        try Self.makePrivateDirectory(root)
        try keepSender()
        try Self.makeDirectory(tree)
        try Self.makeDirectory(parts, mode: 0o700)
        try writeManifest()
    }

    /// The part of staging names before the digest: `.` and at most 200 bytes of the offered name, so the whole
    /// name stays within the usual 255-byte limit.
    package static func stem(of name: String) -> String {
        var stem = "."
        for scalar in name.unicodeScalars where stem.utf8.count + String(scalar).utf8.count <= 201 {
            stem.unicodeScalars.append(scalar)
        }
        return stem
    }

    /// `STEM.<16 hex digits of the manifest digest>.<16 hex digits of the sender's ID>.huddle-partial`.
    package static func rootName(stem: String, digest: String, sender: String) -> String {
        "\(stem).\(digest.prefix(16)).\(sender.prefix(16)).huddle-partial"
    }

    /// The checked components of entry `index`'s path (validated before staging was made, so they cannot fail).
    package func components(of index: Int) -> [String] {
        (try? TransferPath.components(of: offer.entries[index].path)) ?? []
    }

    /// The place of entry `index` in the tree.
    package func url(of index: Int) -> URL {
        components(of: index).reduce(tree) { $0.appendingPathComponent($1) }
    }

    package func part(_ index: Int) -> URL { parts.appendingPathComponent(String(index)) }

    /// Makes every directory of the tree and every empty file, and works out what is still needed: every file
    /// with data is asked for, from the end of what is here of it. A file in the tree (verified in an earlier run)
    /// goes back to its part, whole; a file an earlier, interrupted offer of the same name from the same device
    /// verified under the same resume key is linked in as a whole part (a tree changed between two runs sends
    /// only what changed); other parts resume from where they end. A whole part is asked for at its end: the
    /// sender sends no bytes of it, only the SHA-256 it computes from its own file, which the part must match
    /// before it gets its name — nothing kept from an earlier run counts unchecked.
    /// - Returns: the files to ask for, and the bytes already present.
    package func prepare() throws -> (needed: [TransferResumePoint], present: UInt64) {
        var needed: [TransferResumePoint] = []
        var present: UInt64 = 0
        var made: Set<String> = []  // directories made or checked already: one system call each, not one per file
        let earlier = earlierFiles()
        for (index, entry) in offer.entries.enumerated() {
            var place = tree
            for component in components(of: index).dropLast() {
                place.appendPathComponent(component)
                if made.insert(place.path).inserted { try Self.makeDirectory(place) }
            }
            place.appendPathComponent(components(of: index).last ?? "")
            guard case .file(let size, let key) = entry.kind else {
                if made.insert(place.path).inserted { try Self.makeDirectory(place) }
                continue
            }
            if size == 0 {
                // Nothing to send and nothing to check: an empty file is the empty file.
                if try Self.holds(place, size: 0) { continue }
                unlink(place.path)
                try openPart(index, at: 0).0.close()
                try keep(index)
                continue
            }
            if try Self.holds(place, size: size) {
                guard rename(place.path, part(index).path) == 0 else {
                    throw Self.error("cannot check \(entry.path) again")
                }
            } else {
                unlink(place.path)  // a file there of another size (regular, or `holds` would have thrown)
                if let earlier = earlier[EarlierFile(size: size, key: key)] {
                    unlink(part(index).path)
                    _ = link(earlier.path, part(index).path)  // if it fails, the file is sent whole
                }
            }
            let have = try Self.partSize(part(index), limit: size)
            needed.append(TransferResumePoint(index: UInt32(index), offset: have))
            present += have
        }
        return (needed, present)
    }

    /// Opens the part of file `index` for writing at `offset`, with the SHA-256 state of the bytes before it.
    package func openPart(_ index: Int, at offset: UInt64) throws -> (FileHandle, FileHasher) {
        let path = part(index).path
        let fresh = offset == 0 ? O_TRUNC : 0
        let descriptor = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | fresh, 0o600)
        guard descriptor >= 0 else { throw Self.error("cannot write \(offer.entries[index].path)") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var hasher = FileHasher()
        if offset > 0 {
            try hasher.update(prefixOf: part(index), length: offset)
            try handle.truncate(atOffset: offset)
            try handle.seek(toOffset: offset)
        }
        return (handle, hasher)
    }

    /// Gives a verified part its name in the tree (`link`, so an existing name is never replaced).
    package func keep(_ index: Int) throws {
        let (part, place) = (part(index).path, url(of: index).path)
        guard link(part, place) == 0 else { throw Self.error("cannot name \(offer.entries[index].path)") }
        unlink(part)
    }

    /// Removes the part of file `index` (its data failed the check).
    package func discardPart(_ index: Int) { unlink(part(index).path) }

    /// Moves the finished tree into the target under the offered name, or `name (2)`, …, and removes the staging
    /// directory and those of earlier offers of the name (except those in `inUse`: see ``removeEarlier(except:)``).
    /// The name is claimed with `mkdir` (which fails if it exists), and the tree renamed onto that empty directory
    /// — a name that exists is never touched.
    package func finish(keeping inUse: Set<URL> = []) throws -> URL {
        for candidate in FreeNames(offer.name, splittingExtension: false) {
            let destination = target.appendingPathComponent(candidate)
            guard mkdir(destination.path, 0o755) == 0 else {
                if errno == EEXIST { continue }
                throw Self.error("cannot make \(destination.path)")
            }
            guard rename(tree.path, destination.path) == 0 else {
                let error = Self.error("cannot move the directory into place")
                rmdir(destination.path)
                throw error
            }
            rmdir(parts.path)
            unlink(manifest.path)
            unlink(senderFile.path)
            rmdir(root.path)
            removeEarlier(except: inUse)
            return destination
        }
        throw FileTransferError("no free name for \(offer.name)")
    }

    // MARK: - File system checks

    /// Makes the staging directory, mode 0700, or accepts one that exists only when it is private
    /// (``isPrivate(_:)``): a directory someone else owns or may write in is refused, and nothing in it is read
    /// or written.
    package static func makePrivateDirectory(_ url: URL) throws {
        if mkdir(url.path, 0o700) == 0 { return }
        guard errno == EEXIST else { throw error("cannot make the directory \(url.lastPathComponent)") }
        guard isPrivate(url) else {
            throw FileTransferError(
                "the staging directory \(url.lastPathComponent) exists but is not private "
                    + "(a directory of this user's, mode 0700); not used"
            )
        }
    }

    /// Makes a directory, or accepts one that exists if it is a real directory (not a link to one).
    package static func makeDirectory(_ url: URL, mode: mode_t = 0o755) throws {
        if mkdir(url.path, mode) == 0 { return }
        guard errno == EEXIST, DirectoryScan.kind(of: url.path) == S_IFDIR else {
            throw error("cannot make the directory \(url.lastPathComponent)")
        }
    }

    /// Whether `url` is a regular file of `size` bytes. A non-regular file there (a link, a directory) is an
    /// error: staging holds only what this code put there.
    package static func holds(_ url: URL, size: UInt64) throws -> Bool {
        let kind = DirectoryScan.kind(of: url.path)
        guard kind != 0 else { return false }
        guard kind == S_IFREG else { throw error("\(url.lastPathComponent) in the staging directory is not a file") }
        return regularFileSize(url.path) == size
    }

    /// The bytes of a part to resume from: its size when it is a regular file of at most `limit` bytes, else 0
    /// (none, or one too long to be this file's). A part that is not a regular file is an error, as in ``holds``.
    package static func partSize(_ url: URL, limit: UInt64) throws -> UInt64 {
        let kind = DirectoryScan.kind(of: url.path)
        guard kind != 0 else { return 0 }
        guard kind == S_IFREG else { throw error("\(url.lastPathComponent) in the staging directory is not a file") }
        return regularFileSize(url.path).flatMap { $0 <= limit ? $0 : nil } ?? 0
    }

    package static func regularFileSize(_ path: String) -> UInt64? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return UInt64(info.st_size)
    }

    package static func error(_ what: String) -> FileTransferError {
        FileTransferError("\(what): \(String(cString: strerror(errno)))")
    }
}
