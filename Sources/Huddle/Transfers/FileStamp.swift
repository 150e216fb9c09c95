import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The size and modification time of a file: what tells a sender that a file changed under it, and part of the
/// key a resume is matched by.
struct FileStamp: Hashable, Sendable {
    var size: UInt64
    var modifiedSeconds: Int64
    var modifiedNanoseconds: Int64

    /// The stamp of `url` now (following links, as reading it does).
    static func of(_ url: URL) throws -> FileStamp {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            throw PeerSessionError.transferFailed("cannot read \(url.path): \(reason)")
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
