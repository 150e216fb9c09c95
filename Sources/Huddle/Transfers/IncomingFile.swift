import Foundation
import HuddleWire
import NIOCore

/// Incremental state of a file being received.
final class IncomingFile {
    /// Where the bytes go: a hidden partial file beside the final name, through its sink, or memory.
    enum Sink {
        case file(TransferFileSink, partial: URL, directory: URL)
        case memory
    }

    let transfer: IncomingTransfer
    let offer: TransferOffer
    let sink: Sink
    /// The bytes so far, for a transfer into memory.
    var memory = Data()
    /// The hash so far, for a transfer into memory (a file's sink keeps its own).
    var hasher: FileHasher
    /// Which file the partial file is (device and inode, from the open descriptor): what gets the final name
    /// must be that file.
    var partialIdentity: FileIdentity?
    /// The bytes so far (resumed bytes included) and the rules they follow.
    var bytes: IncomingBytes

    init(
        transfer: IncomingTransfer,
        offer: TransferOffer,
        sink: Sink,
        hasher: FileHasher,
        written: UInt64,
        progressInterval: Int
    ) {
        self.transfer = transfer
        self.offer = offer
        self.sink = sink
        self.hasher = hasher
        self.bytes = IncomingBytes(size: offer.size, present: written, progressInterval: progressInterval)
    }

    var written: UInt64 { bytes.written }
}

extension IncomingFile {
    /// The partial file, for a transfer into a file.
    var partial: URL? {
        if case .file(_, let partial, _) = sink { return partial }
        return nil
    }
}
