import HuddleWire

/// The rules of one directory being received, without I/O: which files are still expected (each from its offset),
/// the one file being written (the sender sends one after another), the checks waiting for files whose last bytes
/// are being written, when END may finish the tree, and when the event of a transfer that ended may go out. Each
/// input returns the ``Action``s to carry out, in order; ``IncomingDirectory`` holds these rules with the staging
/// directory and the open file's sink, and `PeerSession+DirectoryReceiving.swift` carries the actions out. See
/// `docs/design.md`, "Checking directory entries".
struct IncomingDirectoryRules {
    enum Action: Equatable {
        /// Open file `index`'s part at `offset`; its sink becomes the open one.
        case open(UInt32, at: UInt64)
        /// Hand the chunk to the open sink.
        case write
        /// Close the open sink of file `index` and check what it holds against the sender's SHA-256 when it is
        /// closed (``checked(_:sha256:failure:)``); at once when `wroteNothing` (whole from an earlier run).
        case closeAndCheck(UInt32, wroteNothing: Bool)
        /// Close the open sink once what it was handed is written (``closedForResume()``); its part stays.
        case closeForResume
        /// Give checked file `index` its name in the staging directory (then ``kept(_:)`` or
        /// ``keepFailed(_:reason:)``).
        case keep(UInt32)
        /// Remove file `index`'s part: it does not match, and a resume would build on it.
        case discardPart(UInt32)
        case progress(TransferProgress)
        /// Tell the sender the transfer failed (RESULT).
        case sendFailure(String)
        /// The transfer is over: it leaves the session's table (an entry closing still gets its name).
        case forget
        /// Every file is here and checked: move the tree into place and tell the sender.
        case finish
        /// The transfer ended and no file is closing any more: report that it failed, for this reason.
        case reportEnded(String)
    }

    enum Phase: Equatable {
        case receiving
        /// END came while files were still closing: the tree finishes when the last of them is checked.
        case endReceived
        case finished
        /// Failed or stopped; the event waits for files still closing.
        case ended(reason: String, reported: Bool)
    }

    let id: TransferID
    let peer: PeerID
    let entries: [DirectoryEntry]
    let totalSize: UInt64
    let fileCount: Int
    let progressInterval: UInt64
    private(set) var phase = Phase.receiving
    /// Files still expected: entry index → bytes of it already present.
    private(set) var remaining: [UInt32: UInt64]
    /// The file being written, and its bytes.
    private(set) var current: (index: UInt32, bytes: IncomingBytes)?
    /// Files whose sinks are closing (their last bytes being written and checked, or kept for a resume).
    private(set) var closing = 0
    /// The SHA-256 the sender gave for each file whose end came.
    private var claimed: [UInt32: [UInt8]] = [:]
    /// Bytes of all files present (checked, or written to their parts).
    private(set) var completed: UInt64
    let startedAt: UInt64
    private var reportedAt: UInt64
    private(set) var filesCompleted: Int

    init(
        offer: DirectoryOffer,
        peer: PeerID,
        needed: [TransferResumePoint],
        present: UInt64,
        progressInterval: Int
    ) {
        id = offer.id
        self.peer = peer
        entries = offer.entries
        totalSize = offer.totalSize
        fileCount = offer.fileCount
        self.progressInterval = UInt64(max(1, progressInterval))
        remaining = Dictionary(needed.map { ($0.index, $0.offset) }) { first, _ in first }
        completed = present
        startedAt = present
        reportedAt = present
        filesCompleted = fileCount - needed.count
    }

    var isEnded: Bool {
        if case .ended = phase { return true }
        return phase == .finished
    }

    /// `count` bytes of file `index` at `offset` arrived.
    mutating func chunk(_ index: UInt32, offset: UInt64, count: UInt64) -> [Action] {
        guard !isEnded else { return [] }
        var actions = enter(index)
        guard var entry = current, entry.index == index else { return actions }
        if case .refuse(let reason) = entry.bytes.chunk(at: offset, count: count) {
            return actions + fail("\(path(index)): \(reason)")
        }
        current = entry
        completed += count
        actions.append(.write)
        // A file's last chunk reports nothing: the file is reported once, complete, when it has been checked.
        if entry.bytes.written < entry.bytes.size, completed - reportedAt >= progressInterval {
            reportedAt = completed
            actions.append(.progress(progress(of: index, written: entry.bytes.written)))
        }
        return actions
    }

    /// The sender has sent all of file `index`, with its SHA-256. (A part that was already whole from an earlier
    /// run gets no chunks, only this.)
    mutating func entryEnd(_ index: UInt32, sha256: [UInt8]) -> [Action] {
        guard !isEnded else { return [] }
        var actions = enter(index)
        guard let entry = current, entry.index == index else { return actions }
        guard entry.bytes.written == entry.bytes.size else {
            return actions + fail("\(path(index)) ended at \(entry.bytes.written) of \(entry.bytes.size) bytes")
        }
        current = nil
        closing += 1
        claimed[index] = sha256
        actions.append(.closeAndCheck(index, wroteNothing: entry.bytes.written == entry.bytes.startedAt))
        return actions
    }

    /// File `index`'s sink has written everything: what it holds hashes to `sha256`, and `failure` says why a
    /// write failed, if one did. When the transfer ended meanwhile, a file that checks out still gets its name, for
    /// the next run.
    mutating func checked(_ index: UInt32, sha256: [UInt8], failure: String?) -> [Action] {
        closing -= 1
        if let failure { return isEnded ? settledEnd() : fail("\(path(index)): \(failure)") }
        guard sha256 == claimed.removeValue(forKey: index) else {
            let reason = "SHA-256 mismatch: \(path(index)) does not match what was sent"
            return [.discardPart(index)] + (isEnded ? settledEnd() : fail(reason))
        }
        return [.keep(index)]
    }

    /// Checked file `index` has its name.
    mutating func kept(_ index: UInt32) -> [Action] {
        remaining[index] = nil
        filesCompleted += 1
        guard !isEnded else { return settledEnd() }
        reportedAt = completed
        let size = entries[Int(index)].size
        let actions = [Action.progress(progress(of: index, written: size))]
        guard phase == .endReceived, closing == 0 else { return actions }
        return actions + end()
    }

    /// Checked file `index` could not get its name.
    mutating func keepFailed(_ index: UInt32, reason: String) -> [Action] {
        isEnded ? settledEnd() : fail(reason)
    }

    /// The sender is done (END): every file must be here and checked; files still closing are waited for.
    mutating func end() -> [Action] {
        guard !isEnded else { return [] }
        if current == nil, closing > 0 {
            phase = .endReceived
            return []
        }
        guard current == nil, remaining.isEmpty else {
            return fail("ended with \(remaining.count) file(s) incomplete")
        }
        phase = .finished
        return [.forget, .finish]
    }

    /// The transfer stops without a RESULT (cancelled by either side, or the connection ended), or after one
    /// (``fail(_:)``): the open file's part stays for a resume, and the event waits for files still closing.
    mutating func stop(reason: String) -> [Action] {
        guard !isEnded else { return [] }
        phase = .ended(reason: reason, reported: false)
        var actions: [Action] = [.forget]
        if current != nil {
            current = nil
            closing += 1
            actions.append(.closeForResume)
        }
        return actions + settledEnd()
    }

    /// The open sink closed after the transfer ended.
    mutating func closedForResume() -> [Action] {
        closing -= 1
        return settledEnd()
    }

    /// Fails the transfer: the sender is told why, then it stops. Every file in the staging tree was checked, and
    /// parts hold only bytes that came in order, so all stay for a resume.
    mutating func fail(_ reason: String) -> [Action] {
        [.sendFailure(reason)] + stop(reason: reason)
    }

    /// The open file, when it is file `index`, or — when the sender moves on to file `index` — that file's part,
    /// opened at the offset asked for. The transfer fails instead when a file is left unfinished or `index` was
    /// not asked for.
    private mutating func enter(_ index: UInt32) -> [Action] {
        if let entry = current {
            guard entry.index != index else { return [] }
            return fail("\(path(entry.index)) ended at \(entry.bytes.written) bytes")
        }
        guard let start = remaining[index], Int(index) < entries.count else {
            return fail("file \(index) was not asked for")
        }
        current = (index, IncomingBytes(size: entries[Int(index)].size, present: start, progressInterval: 1))
        return [.open(index, at: start)]
    }

    /// The ended transfer's event, once no file is closing.
    private mutating func settledEnd() -> [Action] {
        guard closing == 0, case .ended(let reason, reported: false) = phase else { return [] }
        phase = .ended(reason: reason, reported: true)
        return [.reportEnded(reason)]
    }

    private func path(_ index: UInt32) -> String { entries[Int(index)].path }

    /// The transfer's progress, with file `index` at `written` bytes.
    func progress(of index: UInt32, written: UInt64) -> TransferProgress {
        TransferProgress(
            id: id,
            peer: peer,
            direction: .receiving,
            completed: completed,
            total: totalSize,
            startedAt: startedAt,
            file: TransferFileProgress(
                path: entries[Int(index)].path,
                completed: written,
                total: entries[Int(index)].size,
                filesCompleted: filesCompleted,
                fileCount: fileCount
            )
        )
    }
}
