import Crypto
package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The key a file offer is resumed by (``HuddleWire/TransferOffer/resumeKey``): SHA-256 over a label, the size,
/// the modification time and the first and last MiB. Cheap for any size — two reads of a MiB, where a whole-file
/// hash would read it all before the offer — and it changes when the file is rewritten. Should a file change
/// while keeping its size and time, a resume joins old and new parts, and the whole-file SHA-256 sent at END
/// catches it: the receiver discards the partial file and the transfer fails instead of keeping a wrong file.
package enum ResumeKey {
    package static let sample = 1 << 20

    /// The key of a file, and the stamp it was made from.
    package static func of(file url: URL) throws -> (stamp: FileStamp, key: [UInt8]) {
        let stamp = try FileStamp.of(url)
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let head = try handle.read(upToCount: sample) ?? Data()
        var tail = Data()
        if stamp.size > UInt64(sample) {
            try handle.seek(toOffset: stamp.size - UInt64(sample))
            tail = try handle.read(upToCount: sample) ?? Data()
        }
        return (stamp, key(size: stamp.size, modified: stamp, head: head, tail: tail))
    }

    /// The key of bytes in memory (no modification time).
    package static func of(data: Data) -> [UInt8] {
        let tail = data.count > sample ? data.suffix(sample) : Data()
        return key(size: UInt64(data.count), modified: nil, head: data.prefix(sample), tail: tail)
    }

    package static func key(size: UInt64, modified: FileStamp?, head: Data, tail: Data) -> [UInt8] {
        var hash = SHA256()
        hash.update(data: Array("huddle resume key 1".utf8))
        withUnsafeBytes(of: size.littleEndian) { hash.update(bufferPointer: $0) }
        withUnsafeBytes(of: (modified?.modifiedSeconds ?? 0).littleEndian) { hash.update(bufferPointer: $0) }
        withUnsafeBytes(of: (modified?.modifiedNanoseconds ?? 0).littleEndian) { hash.update(bufferPointer: $0) }
        hash.update(data: head)
        hash.update(data: tail)
        return Array(hash.finalize())
    }
}
