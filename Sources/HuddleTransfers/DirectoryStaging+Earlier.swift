package import Foundation
import HuddleBase
package import HuddleWire
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file of an earlier offer's staging directory, found by what names its content: size and resume key.
package struct EarlierFile: Hashable {
    package var size: UInt64
    package var key: [UInt8]
}

extension DirectoryStaging {
    /// Most bytes of a kept manifest that are read back: the default message limit.
    package static let maximumManifestBytes = 1 << 20

    package var manifest: URL { root.appendingPathComponent("manifest") }

    /// Keeps the offer's manifest in the staging directory (once: the same digest means the same manifest).
    package func writeManifest() throws {
        var bytes = ByteBuffer()
        offer.encodeManifest(into: &bytes)
        let descriptor = open(manifest.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { return }
            throw Self.error("cannot keep the manifest")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: Array(bytes.readableBytesView))
        try handle.close()
    }

    /// The verified files of earlier, interrupted offers of a directory of the same name from the same device in
    /// the same target, by size and resume key: the same key names the same content, so such a file need not be
    /// sent again (it is still checked against the sender's SHA-256 before it counts: see ``prepare()``). They are
    /// found by name, so only staging directories that are this user's and private (no one else could have put
    /// anything there), kept for the same sending device, with a kept manifest that passes the same checks as an
    /// offer's, are read; files in their trees are taken only as regular files of the declared size. Where the
    /// file system does not keep modes (a CIFS mount), nothing is taken: the files are sent again.
    package func earlierFiles() -> [EarlierFile: URL] {
        var found: [EarlierFile: URL] = [:]
        for (other, entries) in earlierStagings() {
            for entry in entries {
                guard case .file(let size, let key) = entry.kind, size > 0,
                    let components = try? TransferPath.components(of: entry.path)
                else { continue }
                let file = components.reduce(other.appendingPathComponent("tree")) { $0.appendingPathComponent($1) }
                if DirectoryScan.kind(of: file.path) == S_IFREG, Self.regularFileSize(file.path) == size {
                    found[EarlierFile(size: size, key: key)] = file
                }
            }
        }
        return found
    }

    /// Removes the staging directories of earlier offers of this name once this one is complete: what they hold
    /// of use was taken, and what they hold besides is of versions of the tree that were not finished. Only those
    /// ``earlierFiles()`` would read (this user's, private, with a kept manifest) and not in `inUse` (being
    /// received now) are removed.
    package func removeEarlier(except inUse: Set<URL>) {
        for (other, _) in earlierStagings() where !inUse.contains(other) {
            try? FileManager.default.removeItem(at: other)
        }
    }

    /// The other staging directories of this name from this sender in the target that are this user's and
    /// private, with the entries of their kept manifests.
    package func earlierStagings() -> [(root: URL, entries: [DirectoryEntry])] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: target.path) else { return [] }
        let suffix = ".\(sender.prefix(16)).huddle-partial"
        return names.compactMap { name in
            guard name.hasPrefix(stem + "."), name.hasSuffix(suffix) else { return nil }
            let digest = name.dropFirst(stem.count + 1).dropLast(suffix.count)
            let other = target.appendingPathComponent(name)
            guard digest.count == 16, digest.allSatisfy(\.isHexDigit), other != root, Self.isPrivate(other),
                Self.keptSender(in: other) == sender, let entries = Self.keptManifest(in: other)
            else { return nil }
            return (other, entries)
        }
    }

    package var senderFile: URL { root.appendingPathComponent("sender") }

    /// Keeps the sending device's ID in the staging directory, or checks that the one kept is the sender's: the
    /// name carries only 16 hex digits of it.
    package func keepSender() throws {
        let descriptor = open(senderFile.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            guard errno == EEXIST else { throw Self.error("cannot keep the sender") }
            guard Self.keptSender(in: root) == sender else {
                throw FileTransferError(
                    "the staging directory \(root.lastPathComponent) was made for another device; not used"
                )
            }
            return
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: Array(sender.utf8))
        try handle.close()
    }

    /// The sending device's ID kept in the staging directory `root` (64 hex digits), if it reads back.
    package static func keptSender(in root: URL) -> String? {
        let path = root.appendingPathComponent("sender").path
        guard DirectoryScan.kind(of: path) == S_IFREG, regularFileSize(path) == 64,
            let data = FileManager.default.contents(atPath: path)
        else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        return text.utf8.count == 64 && text.allSatisfy(\.isHexDigit) ? text : nil
    }

    /// The entries of the manifest kept in the staging directory `root`, when it reads back and passes the
    /// checks an offer's does.
    package static func keptManifest(in root: URL) -> [DirectoryEntry]? {
        let path = root.appendingPathComponent("manifest").path
        guard DirectoryScan.kind(of: path) == S_IFREG,
            let size = regularFileSize(path), size <= UInt64(maximumManifestBytes),
            let data = FileManager.default.contents(atPath: path)
        else { return nil }
        var buffer = ByteBuffer(bytes: data)
        guard
            let offer = try? DirectoryOffer(
                id: TransferID(bytes: Array(repeating: 0, count: 16)),
                decodingBody: &buffer
            ),
            buffer.readableBytes == 0, (try? offer.validate()) != nil
        else { return nil }
        return offer.entries
    }

    /// Whether `url` is a real directory (not a link) owned by this user that no one else may enter.
    package static func isPrivate(_ url: URL) -> Bool {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFDIR && info.st_uid == geteuid() && info.st_mode & 0o077 == 0
    }
}
