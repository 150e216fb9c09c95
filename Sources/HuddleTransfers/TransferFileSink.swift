import Dispatch
package import Foundation
package import HuddleBase
import NIOConcurrencyHelpers
package import NIOCore

/// Where the bytes of one incoming file go: a single file's partial file and a directory entry's part alike. It
/// writes and hashes them, in order, on a queue of its own.
///
/// The session hands it each chunk with the chunk's charge against its receive budget (``append(_:holding:)``);
/// it gathers them into buffers of the session's write size, writes each in one go, adds it to the SHA-256 and
/// then lets go of the charges (which takes the bytes off the budget's books and lets a connection paused for
/// buffered transfer data read again). So a disk (or a hash) slower than the network holds the socket back
/// instead of queueing chunks in memory, and the session's actor never waits for the disk.
///
/// After a failed write the later buffers are dropped (their charges let go of all the same) and ``failure`` says
/// why; the bytes written before stay in the file, in order, for a resume.
package final class TransferFileSink: Sendable {
    /// The open file and the hash of what it holds; touched only on `queue`.
    package struct Output {
        package var handle: FileHandle?
        package var hasher: FileHasher
    }

    private let queue = DispatchQueue(label: "huddle.transfer-writer")
    private let output: NIOLockedValueBox<Output>
    private let failed = NIOLockedValueBox<String?>(nil)
    private let beforeWrite: (@Sendable () -> Void)?
    private let writeSize: Int
    /// Chunks handed over and not yet passed to the queue, gathered into one larger write, with their charges;
    /// touched only by the session's actor.
    private let gathered = NIOLockedValueBox(Gathered())

    struct Gathered {
        var bytes = ByteBuffer()
        var holds: [any AnyObject & Sendable] = []
    }

    /// - Parameters:
    ///   - handle: the file, positioned at its end.
    ///   - hasher: the SHA-256 of what the file holds already.
    ///   - writeSize: how many bytes to gather before a write.
    ///   - beforeWrite: runs on the queue before each write (a test's stand-in for a slow disk).
    package init(
        handle: FileHandle,
        hasher: FileHasher,
        writeSize: Int,
        beforeWrite: (@Sendable () -> Void)? = nil
    ) {
        self.writeSize = writeSize
        self.beforeWrite = beforeWrite
        output = NIOLockedValueBox(Output(handle: handle, hasher: hasher))
    }

    /// Takes one chunk; `hold` (its charge against a receive budget) is let go of once the chunk is written.
    package func append(_ data: ByteBuffer, holding hold: (any AnyObject & Sendable)? = nil) {
        let full = gathered.withLockedValue { gathered -> Gathered? in
            if gathered.bytes.readableBytes == 0 {
                gathered.bytes.reserveCapacity(max(writeSize, data.readableBytes))
            }
            var chunk = data
            gathered.bytes.writeBuffer(&chunk)
            if let hold { gathered.holds.append(hold) }
            guard gathered.bytes.readableBytes >= writeSize else { return nil }
            defer { gathered = Gathered() }
            return gathered
        }
        if let full { write(full) }
    }

    /// Hands what was gathered to the queue.
    package func flush() {
        let rest = gathered.withLockedValue { gathered -> Gathered in
            defer { gathered = Gathered() }
            return gathered
        }
        write(rest)
    }

    /// Why a write failed, once one has.
    package var failure: String? { failed.withLockedValue { $0 } }

    /// Appends the gathered bytes to the file and the hash, later, after the buffers handed over before them;
    /// then lets go of their charges.
    private func write(_ gathered: Gathered) {
        guard gathered.bytes.readableBytes > 0 else { return }
        queue.async { [self] in
            let buffer = gathered.bytes
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
            withExtendedLifetime(gathered.holds) {}  // written (or dropped): the charges go now
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
