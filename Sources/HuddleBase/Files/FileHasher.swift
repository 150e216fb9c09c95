package import Crypto
public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SHA-256 of files, streamed through one fixed buffer (no allocation per chunk).
///
/// `update(_:)` is `@inlinable`: called from other modules with a concrete buffer type, it is specialised there
/// instead of hashing through the generic `DataProtocol` witnesses on every chunk (`BENCHMARKS.md`).
package struct FileHasher {
    @usableFromInline var hash = SHA256()

    package init() {}

    @inlinable
    package mutating func update(_ bytes: some DataProtocol) { hash.update(data: bytes) }

    package func digest() -> [UInt8] { Array(hash.finalize()) }

    /// Adds `length` bytes of `url` from its start (the part a resumed transfer already has).
    package mutating func update(prefixOf url: URL, length: UInt64) throws {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        try update(reading: handle.fileDescriptor, length: length)
    }

    /// Adds `length` bytes of the open file `descriptor` from `offset` on (read with `pread`, so the descriptor's
    /// position is not moved); fails if the file holds fewer.
    package mutating func update(reading descriptor: Int32, from offset: UInt64 = 0, length: UInt64) throws {
        var buffer = [UInt8](repeating: 0, count: Int(min(length, Self.bufferSize)))
        var done: UInt64 = 0
        while done < length {
            let want = Int(min(UInt64(buffer.count), length - done))
            let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, want, off_t(offset + done)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                let reason = got < 0 ? String(cString: strerror(errno)) : "the file is shorter than \(length) bytes"
                throw FileTransferError("cannot read: \(reason)")
            }
            update(buffer[0..<got])
            done += UInt64(got)
        }
    }

    package static let bufferSize: UInt64 = 1 << 20
}

/// The SHA-256 of whole files, for protocols whose offers carry it.
public enum FileDigest {
    /// The SHA-256 of the file at `url` and its size (as hashed). The hashing gives way to other tasks and
    /// notices cancellation every few MiB, so a gigabyte holds up nothing and can be dropped half-way.
    public static func sha256(ofFileAt url: URL) async throws -> (digest: [UInt8], size: UInt64) {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        var hasher = FileHasher()
        var offset: UInt64 = 0
        while offset < size {
            try Task.checkCancellation()
            let slice = min(size - offset, 4 * FileHasher.bufferSize)
            try hasher.update(reading: handle.fileDescriptor, from: offset, length: slice)
            offset += slice
            await Task.yield()
        }
        return (hasher.digest(), size)
    }
}
