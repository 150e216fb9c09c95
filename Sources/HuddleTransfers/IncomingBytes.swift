/// The rules of the bytes arriving for one incoming file, without I/O: chunks come in order and within the offered
/// size, progress is reported every ``TransferConfiguration/progressInterval`` bytes and at the end, and the end
/// decides whether the file is kept, kept as a partial file for a resume, or discarded. See `docs/design.md`,
/// "Transfers".
package struct IncomingBytes: Equatable {
    /// What to do with a chunk.
    package enum Chunk: Equatable {
        /// Take it; `reportProgress` when a progress event is due.
        case take(reportProgress: Bool)
        /// It does not fit (out of order, or past the offered size): the transfer fails, and the partial file
        /// goes (a peer that sends such chunks is not to be resumed from).
        case refuse(String)
    }

    /// What the end of the stream means for the file.
    package enum Verdict: Equatable {
        /// Every byte arrived and matches the sender's SHA-256.
        case keep
        /// The transfer failed, but the bytes so far are the sender's, in order: kept for a resume.
        case failKeepingPartial(String)
        /// The bytes do not match: a resume would build on them, so they go.
        case failDiscarding(String)
    }

    package let size: UInt64
    package let progressInterval: UInt64
    /// Where this run started (what an earlier run left).
    package let startedAt: UInt64
    package private(set) var written: UInt64
    package private(set) var reportedAt: UInt64

    package init(size: UInt64, present: UInt64, progressInterval: Int) {
        self.size = size
        self.progressInterval = UInt64(max(1, progressInterval))
        startedAt = present
        written = present
        reportedAt = present
    }

    /// A chunk of `count` bytes at `offset` arrived.
    package mutating func chunk(at offset: UInt64, count: UInt64) -> Chunk {
        guard offset == written, count <= size - written else {
            return .refuse("chunk at \(offset) of \(count) bytes does not fit (have \(written))")
        }
        written += count
        guard written - reportedAt >= progressInterval || written == size else { return .take(reportProgress: false) }
        reportedAt = written
        return .take(reportProgress: true)
    }

    /// The sender ended, claiming `claimed`; what was written hashes to `sha256` (nil when the sender gave no
    /// hash), and `writeFailure` says why writing failed, if it did.
    package func verdict(sha256: [UInt8], claimed: [UInt8]?, writeFailure: String?) -> Verdict {
        guard let claimed else { return .failKeepingPartial("END without the file's SHA-256") }
        if let writeFailure { return .failKeepingPartial(writeFailure) }
        guard written == size else { return .failKeepingPartial("ended at \(written) of \(size) bytes") }
        guard sha256 == claimed else {
            return .failDiscarding("SHA-256 mismatch: the data does not match the sender's")
        }
        return .keep
    }
}
