import Foundation
import NIOCore

/// Where the bytes of an outgoing file come from: a file on disk (read in chunks, never whole) or data in memory.
enum TransferSource: Sendable {
    case file(URL)
    case memory(Data)

    /// A reader positioned at `offset`.
    func open(at offset: UInt64) throws -> Reader {
        switch self {
        case .file(let url):
            let handle = try FileHandle(forReadingFrom: url)
            try handle.seek(toOffset: offset)
            return .file(handle)
        case .memory(let data):
            return .memory(data, position: data.startIndex + Int(min(offset, UInt64(data.count))))
        }
    }

    /// Adds the first `length` bytes to `hasher`: the part of a resumed transfer the receiver has already.
    func hashPrefix(length: UInt64, into hasher: inout FileHasher) throws {
        guard length > 0 else { return }
        switch self {
        case .file(let url): try hasher.update(prefixOf: url, length: length)
        case .memory(let data): hasher.update(data.prefix(Int(min(length, UInt64(data.count)))))
        }
    }

    /// Reads a source in order.
    enum Reader {
        case file(FileHandle)
        case memory(Data, position: Data.Index)

        /// Up to `count` bytes; empty at the end.
        mutating func read(upTo count: Int) throws -> Data {
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
        mutating func read(upTo count: Int, appendingTo buffer: inout ByteBuffer) throws -> Int {
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
                        throw PeerSessionError.transferFailed("cannot read: \(String(cString: strerror(failure)))")
                    }
                }
            case .memory:
                let data = try read(upTo: count)
                buffer.writeBytes(data)
                return data.count
            }
        }

        func close() {
            if case .file(let handle) = self { try? handle.close() }
        }
    }
}
