import Dispatch
package import Foundation
package import HuddleBase
import NIOConcurrencyHelpers
package import NIOCore

/// Where the bytes of one incoming file go: a single file's partial file and a directory entry's part alike. It
/// writes and hashes them, in order, on a queue of its own.
///
/// The session hands it each chunk (``append(_:)``); it gathers them into buffers of
/// the session's write size, writes each in one go, adds it to the SHA-256 and tells `written` (the session's receive
/// budget takes the bytes off its books, which lets a connection paused for buffered transfer data read again). So a disk (or a
/// hash) slower than the network holds the socket back instead of queueing chunks in memory, and the session's
/// actor never waits for the disk.
///
/// After a failed write the later buffers are dropped (still taken off the books) and ``failure`` says why; the
/// bytes written before stay in the file, in order, for a resume.
package final class TransferFileSink: Sendable {
    /// The open file and the hash of what it holds; touched only on `queue`.
    package struct Output {
        package var handle: FileHandle?
        package var hasher: FileHasher
    }

    private let queue = DispatchQueue(label: "huddle.transfer-writer")
    private let written: @Sendable (Int) -> Void
    private let output: NIOLockedValueBox<Output>
    private let failed = NIOLockedValueBox<String?>(nil)
    private let beforeWrite: (@Sendable () -> Void)?
    private let writeSize: Int
    /// Chunks handed over and not yet passed to the queue, gathered into one larger write; touched only by the
    /// session's actor.
    private let gathered = NIOLockedValueBox(ByteBuffer())

    /// - Parameters:
    ///   - handle: the file, positioned at its end.
    ///   - hasher: the SHA-256 of what the file holds already.
    ///   - written: told of each chunk's byte count once it is written (or dropped after a failure).
    ///   - writeSize: how many bytes to gather before a write.
    ///   - beforeWrite: runs on the queue before each write (a test's stand-in for a slow disk).
    package init(
        handle: FileHandle,
        hasher: FileHasher,
        written: @escaping @Sendable (Int) -> Void,
        writeSize: Int,
        beforeWrite: (@Sendable () -> Void)? = nil
    ) {
        self.written = written
        self.writeSize = writeSize
        self.beforeWrite = beforeWrite
        output = NIOLockedValueBox(Output(handle: handle, hasher: hasher))
    }

    /// Takes one chunk; its bytes leave the receive budget once written.
    package func append(_ data: ByteBuffer) {
        let full = gathered.withLockedValue { gathered -> ByteBuffer? in
            if gathered.readableBytes == 0 { gathered.reserveCapacity(max(writeSize, data.readableBytes)) }
            var chunk = data
            gathered.writeBuffer(&chunk)
            guard gathered.readableBytes >= writeSize else { return nil }
            defer { gathered = ByteBuffer() }
            return gathered
        }
        if let full { write(full) }
    }

    /// Hands what was gathered to the queue.
    package func flush() {
        let rest = gathered.withLockedValue { gathered -> ByteBuffer in
            defer { gathered = ByteBuffer() }
            return gathered
        }
        write(rest)
    }

    /// Why a write failed, once one has.
    package var failure: String? { failed.withLockedValue { $0 } }

    /// Appends `buffer` to the file and the hash, later, after the buffers handed over before it.
    private func write(_ buffer: ByteBuffer) {
        guard buffer.readableBytes > 0 else { return }
        queue.async { [self] in
            let count = buffer.readableBytes
            beforeWrite?()
            if failure == nil {
                let error: (any Error)? = output.withLockedValue { output in
                    do {
                        try buffer.withUnsafeReadableBytes { try output.handle?.write(contentsOf: $0) }
                    } catch {
                        return error
                    }
                    buffer.withUnsafeReadableBytes { output.hasher.update($0) }
                    return nil
                }
                if let error { failed.withLockedValue { $0 = $0 ?? "cannot write: \(error)" } }
            }
            written(count)
        }
    }

    /// Closes a sink that was handed nothing (a file whole from an earlier run) at once.
    /// - Returns: the SHA-256 of what the file held when it was opened.
    package func closeUnwritten() -> [UInt8] {
        output.withLockedValue { output in
            try? output.handle?.close()
            output.handle = nil
            return output.hasher.digest()
        }
    }

    /// Writes what was handed over, then closes the file (flushed to disk first when `sync`).
    /// - Returns: the SHA-256 of everything in the file, and why a write failed if one did.
    package func close(sync: Bool) async -> (sha256: [UInt8], failure: String?) {
        flush()
        return await withCheckedContinuation { continuation in
            queue.async { [self] in
                let digest = output.withLockedValue { output in
                    if sync { try? output.handle?.synchronize() }
                    try? output.handle?.close()
                    output.handle = nil
                    return output.hasher.digest()
                }
                continuation.resume(returning: (digest, failure))
            }
        }
    }
}
