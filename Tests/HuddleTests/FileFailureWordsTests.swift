import HuddleBase
import Testing

@testable import Huddle

/// A file operation's failure below the session (``FileTransferError``) is said as the session says a failed
/// transfer, with the same reason.
@Suite("File failures in the session's words")
struct FileFailureWordsTests {
    @Test func aFileFailureBecomesAFailedTransfer() {
        #expect(throws: PeerSessionError.transferFailed("cannot read: gone")) {
            try sessionFileOperation { throw FileTransferError("cannot read: gone") }
        }
        #expect(throws: CancellationError.self) { try sessionFileOperation { throw CancellationError() } }
    }
}
