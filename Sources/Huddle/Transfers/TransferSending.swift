public import HuddleWire

/// A send under way: its ID at once, its progress, a way to cancel it, and its end. A file
/// (``PeerSession/startSendingFile(at:to:type:)``) ends with its ``TransferID``; a directory
/// (``PeerSession/startSendingDirectory(at:to:type:)``) with its ``DirectoryTransferReport``.
public struct TransferSending<Outcome: Sendable>: Sendable {
    /// The transfer's ID; the receiver's ``IncomingTransfer`` has the same.
    public let id: TransferID
    /// The sender's progress events for this transfer, in order (the newest 64 when not read); the stream ends
    /// when the send does.
    public let progress: AsyncStream<TransferProgress>
    let task: Task<Outcome, any Error>

    /// Cancels the send: the receiver is told and keeps what it has for a resume; ``value`` throws `.cancelled`.
    public func cancel() {
        task.cancel()
    }

    /// Waits for the receiver's verdict.
    /// - Throws: what ``PeerSession/sendFile(at:to:type:)`` or ``PeerSession/sendDirectory(at:to:type:)`` throws.
    public var value: Outcome {
        get async throws { try await task.value }
    }
}

/// A file send under way; its value is the transfer's ID once the receiver verified and kept the file.
public typealias FileSending = TransferSending<TransferID>

/// A directory send under way; its value is the report once the receiver verified and kept every file.
public typealias DirectorySending = TransferSending<DirectoryTransferReport>
