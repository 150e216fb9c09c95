import Foundation
import HuddleWire

/// A directory being received: its rules (``IncomingDirectoryRules``), the staging directory the files are built
/// in, and the sink of the file being written now. Used on the session's actor only.
final class IncomingDirectory {
    let transfer: IncomingTransfer
    let staging: DirectoryStaging
    var rules: IncomingDirectoryRules
    /// The sink of the file being written: the sender sends one file after another.
    var sink: TransferFileSink?
    /// It ended while files were still being written to its staging directory, and has not reported its end yet.
    var isSettling = false

    init(
        transfer: IncomingTransfer,
        staging: DirectoryStaging,
        needed: [TransferResumePoint],
        present: UInt64,
        progressInterval: Int
    ) {
        self.transfer = transfer
        self.staging = staging
        rules = IncomingDirectoryRules(
            offer: staging.offer,
            peer: transfer.peer,
            needed: needed,
            present: present,
            progressInterval: progressInterval
        )
    }
}
