import Dispatch
import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// Writes the data of one incoming file to its partial file and hashes it, in order, on a queue of its own.
///
/// The session gathers chunks into buffers of ``TransferConfiguration/writeSize`` and hands them over; the writer
/// writes each in one go, adds it to the SHA-256 and takes its bytes off the ``ReceiveFlow``'s books, which lets a
/// connection paused for buffered transfer data read again. So a disk (or a hash) slower than the network holds
/// the socket back instead of queueing chunks in memory, and the session's actor never waits for the disk.
///
/// After a failed write the later buffers are dropped (still taken off the books) and ``failure`` says why; the
/// bytes written before stay in the partial file, in order, for a resume.
final class TransferWriter: Sendable {
    /// The open file and the hash of what it holds; touched only on `queue`.
    struct Output {
        var handle: FileHandle?
        var hasher: FileHasher
    }

    private let queue = DispatchQueue(label: "huddle.transfer-writer")
    private let flow: ReceiveFlow
    private let output: NIOLockedValueBox<Output>
    private let failed = NIOLockedValueBox<String?>(nil)
    private let beforeWrite: (@Sendable () -> Void)?

    /// - Parameters:
    ///   - handle: the partial file, positioned at its end.
    ///   - hasher: the SHA-256 of what the partial file holds already.
    ///   - beforeWrite: runs on the queue before each write (a test's stand-in for a slow disk).
    init(handle: FileHandle, hasher: FileHasher, flow: ReceiveFlow, beforeWrite: (@Sendable () -> Void)? = nil) {
        self.flow = flow
        self.beforeWrite = beforeWrite
        output = NIOLockedValueBox(Output(handle: handle, hasher: hasher))
    }

    /// Why a write failed, once one has.
    var failure: String? { failed.withLockedValue { $0 } }

    /// Appends `buffer` to the file and the hash, later, after the buffers handed over before it.
    func write(_ buffer: ByteBuffer) {
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
            flow.consumedResource(count)
        }
    }

    /// Waits for the writes handed over so far, then closes the file (flushed to disk first when `sync`).
    /// - Returns: the SHA-256 of everything in the file, and why a write failed if one did.
    func close(sync: Bool) async -> (sha256: [UInt8], failure: String?) {
        await withCheckedContinuation { continuation in
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
