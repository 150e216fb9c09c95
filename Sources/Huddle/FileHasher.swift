import Crypto
import Foundation

/// SHA-256 of files, streamed with a fixed buffer.
struct FileHasher {
    var hash = SHA256()

    mutating func update(_ bytes: some DataProtocol) { hash.update(data: bytes) }

    func digest() -> [UInt8] { Array(hash.finalize()) }

    /// Adds `length` bytes of `url` from its start (the part a resumed transfer already has).
    mutating func update(prefixOf url: URL, length: UInt64) throws {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var left = length
        while left > 0 {
            guard let data = try handle.read(upToCount: Int(min(left, 1 << 20))), !data.isEmpty else { break }
            update(data)
            left -= UInt64(data.count)
        }
    }

}
