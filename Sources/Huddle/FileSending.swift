public import HuddleWire

/// A file send under way (``PeerSession/startSendingFile(at:to:type:)``): its ID at once, its progress, a way to
/// cancel it, and its end.
public struct FileSending: Sendable {
    /// The transfer's ID; the receiver's ``IncomingTransfer`` has the same.
    public let id: TransferID
    /// The sender's progress events for this transfer, in order; the stream ends when the send does.
    public let progress: AsyncStream<TransferProgress>
    let task: Task<TransferID, any Error>

    /// Cancels the send: the receiver is told and keeps its partial file; ``value`` throws `.cancelled`.
    public func cancel() {
        task.cancel()
    }

    /// Waits for the receiver's verdict: the transfer's ID once it verified and kept the file.
    /// - Throws: what ``PeerSession/sendFile(at:to:type:)`` throws.
    public var value: TransferID {
        get async throws { try await task.value }
    }
}
