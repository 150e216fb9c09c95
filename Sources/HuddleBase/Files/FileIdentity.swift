// `stat` and its fields: which module the compiler credits with them depends on the order modules load in (the
// C header is shared), and member import visibility then wants that module imported.
#if canImport(Glibc)
package import Glibc
#elseif canImport(Darwin)
package import Darwin
#endif
#if canImport(CoreFoundation)
import CoreFoundation
#endif

/// Which file a descriptor or path is: its device and inode.
package struct FileIdentity: Hashable, Sendable {
    package var device: UInt64
    package var inode: UInt64

    package init(_ info: stat) {
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
    }

    /// The regular file open at `descriptor` (`fstat`), or nil when it is not one or cannot be read.
    package init?(regularFileAt descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        self.init(info)
    }

    /// The file at `path` itself (`lstat`), or nil when it cannot be read.
    package init?(lstatOf path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The file at `path`, following links (`stat`), or nil when it cannot be read.
    package init?(statOf path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }
}
