import Foundation
import NIOFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which file a path named when it was chosen to be sent or shared: its device and inode, links followed (a link
/// the user gave is the file it points to then).
///
/// Files are opened by path again when a receiver takes them (an upload, a share download: there may be
/// thousands, too many to hold open). Whoever can write the directory could meanwhile replace the file with a
/// link to another one, say the sharer's private key; so each open descriptor is checked against this identity
/// before a byte is read from it, and a file replaced since is not sent (docs/threat-model.md, "Foreign peers").
struct LocalSendFileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The regular file `url` names now.
    /// - Throws: ``LocalSendError/fileChanged(_:)`` when it cannot be read or is not a regular file.
    init(of url: URL) throws {
        var info = stat()
        guard stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw LocalSendError.fileChanged(url.lastPathComponent)
        }
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
    }

    init?(_ info: FileInfo) {
        guard let status = info.platformSpecificStatus, info.type == .regular else { return nil }
        device = UInt64(truncatingIfNeeded: status.st_dev)
        inode = UInt64(truncatingIfNeeded: status.st_ino)
    }

    /// Checks that the open `handle` is this file.
    /// - Throws: ``LocalSendError/fileReplaced(_:)`` when it is another.
    func check(_ handle: ReadFileHandle, name: String) async throws {
        guard let found = Self(try await handle.info()), found == self else {
            throw LocalSendError.fileReplaced(name)
        }
    }
}
