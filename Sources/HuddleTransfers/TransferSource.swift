package import Foundation
package import HuddleBase
package import NIOCore

// `stat` and its fields: which module the compiler credits with them depends on the order modules load in (the
// C header is shared), and member import visibility then wants that module imported (as in PartialFile.swift).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the bytes of an outgoing file come from: a file on disk (read in chunks, never whole) or data in memory.
package enum TransferSource: Sendable {
    case file(URL)
    case memory(Data)

    /// A reader positioned at `offset`. A file must still be `identity` (the file its resume key was made from)
    /// when one is given: a file replaced since is not sent.
    package func open(at offset: UInt64, identity: FileIdentity? = nil) throws -> Reader {
        switch self {
        case .file(let url):
            var reader = Reader.file(
                try Self.openFile(url, followingLinks: true, identity: identity, path: url.lastPathComponent)
            )
            try reader.seek(to: offset)
            return reader
        case .memory(let data):
            return .memory(data, position: data.startIndex + Int(min(offset, UInt64(data.count))))
        }
    }

    /// Opens `url` for reading: a regular file, not a link unless `followingLinks`, and the file `identity`
    /// names (device and inode) when one is given, checked on the open descriptor so nothing can be swapped in
    /// between the check and the reads. `path` names the file in errors.
    package static func openFile(
        _ url: URL,
        followingLinks: Bool,
        identity: FileIdentity?,
        path: String
    ) throws
        -> FileHandle
    {
        let descriptor = Foundation.open(url.path, O_RDONLY | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW))
        guard descriptor >= 0 else {
            if errno == ELOOP { throw FileTransferError("\(path) was replaced by a link; not sent") }
            throw FileTransferError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw FileTransferError("\(path) is not a regular file; not sent")
        }
        if let identity, FileIdentity(info) != identity {
            throw FileTransferError("\(path) was replaced by another file since it was offered")
        }
        return handle
    }

    /// Reads a source in order.
    package enum Reader {
        case file(FileHandle)
        case memory(Data, position: Data.Index)

        /// Moves to `offset` (of a file; data starts where it was opened).
        package mutating func seek(to offset: UInt64) throws {
            switch self {
            case .file(let handle): try handle.seek(toOffset: offset)
            case .memory(let data, _):
                self = .memory(data, position: data.startIndex + Int(min(offset, UInt64(data.count))))
            }
        }

        /// The size and modification time of the open file now (nil for data).
        package func stamp() throws -> FileStamp? {
            guard case .file(let handle) = self else { return nil }
            var info = stat()
            guard fstat(handle.fileDescriptor, &info) == 0 else {
                throw FileTransferError("cannot read: \(String(cString: strerror(errno)))")
            }
            return FileStamp(info)
        }

        /// Adds the first `length` bytes to `hasher`: the part of a resumed transfer the receiver has already.
        /// Read with `pread`, so the position of a reader is not moved.
        package func hashPrefix(length: UInt64, into hasher: inout FileHasher) throws {
            guard length > 0 else { return }
            switch self {
            case .file(let handle):
                try hasher.update(reading: handle.fileDescriptor, length: length)
            case .memory(let data, _): hasher.update(data.prefix(Int(min(length, UInt64(data.count)))))
            }
        }

        /// Up to `count` bytes; empty at the end.
        package mutating func read(upTo count: Int) throws -> Data {
            switch self {
            case .file(let handle):
                return try handle.read(upToCount: count) ?? Data()
            case .memory(let data, let position):
                let end = min(data.endIndex, position + count)
                self = .memory(data, position: end)
                return data[position..<end]
            }
        }

        /// Appends up to `count` bytes to `buffer`, read from the file straight into it; returns how many.
        package mutating func read(upTo count: Int, appendingTo buffer: inout ByteBuffer) throws -> Int {
            switch self {
            case .file(let handle):
                let descriptor = handle.fileDescriptor
                buffer.reserveCapacity(minimumWritableBytes: count)
                while true {
                    var failure: Int32 = 0
                    let got = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { space in
                        let result = Foundation.read(descriptor, space.baseAddress, min(count, space.count))
                        if result < 0 { failure = errno }
                        return max(result, 0)
                    }
                    if failure == 0 { return got }
                    guard failure == EINTR else {
                        throw FileTransferError("cannot read: \(String(cString: strerror(failure)))")
                    }
                }
            case .memory:
                let data = try read(upTo: count)
                buffer.writeBytes(data)
                return data.count
            }
        }

        package func close() {
            if case .file(let handle) = self { try? handle.close() }
        }
    }
}

extension FileStamp {
    package init(_ info: stat) {
        #if canImport(Darwin)
        let modified = info.st_mtimespec
        #else
        let modified = info.st_mtim
        #endif
        self.init(
            size: UInt64(info.st_size),
            modifiedSeconds: Int64(modified.tv_sec),
            modifiedNanoseconds: Int64(modified.tv_nsec)
        )
    }
}
