package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file so that readers see the old contents or the new, never a mix: a temporary file in the same
/// directory, written, fsync'd, renamed over the target, then the directory fsync'd.
///
/// With `replacing: false` the file is linked into place instead of renamed, so that of several writers racing to
/// create it exactly one wins and the others get ``AtomicFileError/exists(path:)``.
package enum AtomicFile {
    package static func write(_ bytes: [UInt8], to url: URL, mode: UInt32, replacing: Bool = true) throws {
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/.\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
        guard fd >= 0 else { throw AtomicFileError.cannotWrite(path: temporary, errno: errno) }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
            guard result > 0 else {
                let error = errno
                close(fd)
                unlink(temporary)
                throw AtomicFileError.cannotWrite(path: temporary, errno: error)
            }
            written += result
        }
        fchmod(fd, mode_t(mode))
        guard fsync(fd) == 0 else {
            let error = errno
            close(fd)
            unlink(temporary)
            throw AtomicFileError.cannotWrite(path: temporary, errno: error)
        }
        close(fd)
        if replacing {
            guard rename(temporary, url.path) == 0 else {
                let error = errno
                unlink(temporary)
                throw AtomicFileError.cannotWrite(path: url.path, errno: error)
            }
        } else {
            let linked = link(temporary, url.path)
            let error = errno
            unlink(temporary)
            guard linked == 0 else {
                if error == EEXIST { throw AtomicFileError.exists(path: url.path) }
                throw AtomicFileError.cannotWrite(path: url.path, errno: error)
            }
        }
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }
}

package enum AtomicFileError: Error, CustomStringConvertible {
    case cannotWrite(path: String, errno: Int32)
    /// The file was to be created, and another writer created it first.
    case exists(path: String)

    package var description: String {
        switch self {
        case .cannotWrite(let path, let code): "cannot write \(path): \(String(cString: strerror(code)))"
        case .exists(let path): "\(path) already exists"
        }
    }
}
