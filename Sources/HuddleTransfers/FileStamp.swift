package import Foundation
import HuddleBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The size and modification time of a file: what tells a sender that a file changed under it, and part of the
/// key a resume is matched by.
package struct FileStamp: Hashable, Sendable {
    package var size: UInt64
    package var modifiedSeconds: Int64
    package var modifiedNanoseconds: Int64

    /// The stamp of `url` now (following links, as reading it does).
    package static func of(_ url: URL) throws -> FileStamp {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            throw FileTransferError("cannot read \(url.path): \(reason)")
        }
        #if canImport(Darwin)
        let modified = info.st_mtimespec
        #else
        let modified = info.st_mtim
        #endif
        return FileStamp(
            size: UInt64(info.st_size),
            modifiedSeconds: Int64(modified.tv_sec),
            modifiedNanoseconds: Int64(modified.tv_nsec)
        )
    }
}
