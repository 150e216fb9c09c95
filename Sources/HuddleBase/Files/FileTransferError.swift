/// Why a file could not be read, written or kept: in words for the user (which file, what is wrong). Worded as the
/// session words a failed transfer (`PeerSessionError.transferFailed`), which it becomes there.
public struct FileTransferError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as the failure's own words (untrusted: it may carry a name a peer chose).
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { "the transfer failed: \(DisplayText.escaped(reason))" }
}
