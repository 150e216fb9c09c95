public import Foundation
import HuddleTransport
public import HuddleWire

/// What a session reports, in order, through ``PeerSession/events``.
public enum PeerSessionEvent: Sendable {
    /// A peer was found, or its details changed.
    case peerFound(PeerInfo)
    /// A peer's state changed.
    case stateChanged(PeerID, PeerState)
    /// A decision is needed: answer with ``PeerSession/accept(_:)`` or ``PeerSession/deny(_:)``.
    case connectionRequest(PeerConnectionRequest)
    /// A request ended before it was answered (the other side gave up, denied, or timed out).
    case connectionRequestEnded(PeerConnectionRequest.ID, PeerSessionError)
    /// A message arrived, and how: its mode and channel (``PeerDelivery``). Reliable messages come in the order
    /// sent; unreliable ones as they arrive (a sequenced update only when newer than the last delivered on its
    /// channel).
    case received([UInt8], from: PeerID, PeerDelivery)
    /// Reliable messages, in the order sent, that `peer` did not confirm and that will not be sent again: the
    /// connection was lost and the peer did not come back within
    /// ``PeerSessionConfiguration/redeliveryWindow``, the peer said goodbye before reading them, or the session
    /// stopped. Every other reliable message arrived, once and in order. "Not confirmed" is not "certainly lost":
    /// a peer that read a message and lost its connection before its acknowledgement left has it, and it is
    /// reported here all the same (no protocol can tell the two apart from this side).
    case undelivered([[UInt8]], to: PeerID)
    /// A peer offers a file or a directory: ``PeerSession/acceptTransfer(_:into:)``,
    /// ``PeerSession/acceptTransferIntoMemory(_:)`` or ``PeerSession/declineTransfer(_:reason:)``.
    case transferOffered(IncomingTransfer)
    /// Bytes of a transfer done (about every MiB, at the end, and after each file of a directory).
    case transferProgress(TransferProgress)
    /// A received file, or every file of a received directory, was verified and kept at the URL.
    case transferFinished(TransferID, PeerID, URL)
    /// A transfer accepted into memory arrived whole and verified.
    case transferReceivedData(TransferID, PeerID, Data)
    /// A received file failed (the partial file is kept when the data so far is sound).
    case transferFailed(TransferID, PeerID, PeerSessionError)
    /// Pairing runs ended unpaired too often: new pairings are refused for a while (``PairingBudget``). Paired
    /// devices still connect. Tell the user: `pause.description` says how many, from where, for how long.
    case pairingPaused(PairingBudget.Pause)
    /// A direct address (``PeerSessionConfiguration/peerAddresses``) did not answer as a peer of this session: the
    /// first failure, and each whose reason differs from the last. The session keeps trying, less and less often.
    case addressUnreachable(PeerAddress, PeerSessionError)
    /// A pairing link authenticated the connection to `peer` (on the side that issued it, and on the side that
    /// used it): the device is pinned as verified. Sent just before the peer is connected.
    case pairedByLink(PeerID, DeviceID)
    /// Something went wrong with a peer that no call is waiting for.
    case peerError(PeerID?, PeerSessionError)
}
