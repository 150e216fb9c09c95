/// Runs `body`, a file operation of HuddleBase or HuddleTransfers (partial files, hashes, staged directories), with
/// its failure said as the session says it: ``PeerSessionError/transferFailed(_:)`` with the same reason, so the
/// session's own handling of failed transfers (telling the peer, the error code) holds for it.
func sessionFileOperation<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as FileTransferError {
        throw PeerSessionError.transferFailed(error.reason)
    }
}
