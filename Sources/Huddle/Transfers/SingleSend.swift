/// What a single-file send offers, and the file's stamp when it comes from disk (checked again after sending).
import HuddleWire

struct SingleSend {
    let name: String
    let size: UInt64
    let resumeKey: [UInt8]
    let type: String
    var stamp: FileStamp? = nil
    /// The file's device and inode when its key was made: the file sent must be that one.
    var identity: FileIdentity? = nil
    /// The transfer's ID when the caller chose it already (``PeerSession/startSendingFile(at:to:type:)``).
    var id: TransferID? = nil
}
