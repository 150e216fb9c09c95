import HuddleWire
import NIOConcurrencyHelpers
import NIOCore

/// A session's transfers: the files, directories and data it sends and receives, with their I/O (partial files,
/// staging directories, file sinks, the waiting senders and their decision deadlines). The rules are
/// ``TransferCoordinator``'s (which transfer is whose and in which state), ``IncomingBytes``' and
/// ``IncomingDirectoryRules``'; this actor carries out what they decide.
///
/// It runs on its session's executor (``PeerSession/unownedExecutor``), so the session hands it what its
/// connections bring synchronously and in order (`assumeIsolated`), and a call between the two never waits for a
/// thread. `docs/design.md`, "Transfers", describes the whole.
actor SessionTransfers {
    nonisolated let configuration: PeerSessionConfiguration
    /// The channel of each connected peer, and the receive budget the transfers' bytes count against.
    nonisolated let flow: ReceiveFlow
    nonisolated let broadcast: EventBroadcast<PeerSessionEvent>
    /// The progress streams of ``FileSending`` handles, by transfer.
    nonisolated let transferWatchers = NIOLockedValueBox<[TransferID: AsyncStream<TransferProgress>.Continuation]>([:])
    /// Outgoing transfers to stop at their next chunk.
    nonisolated let cancelledTransfers = NIOLockedValueBox<Set<TransferID>>([])
    /// Every transfer, by ID, in one state each.
    var table: TransferCoordinator
    /// The sender's call waiting for the receiver's next answer, by transfer.
    var outgoingWaiters: [TransferID: CheckedContinuation<OutgoingReply, any Error>] = [:]
    /// Withdraws an offer after ``TransferConfiguration/decisionTimeout``, by transfer.
    var decisionTimers: [TransferID: Task<Void, Never>] = [:]

    init(configuration: PeerSessionConfiguration, flow: ReceiveFlow, broadcast: EventBroadcast<PeerSessionEvent>) {
        self.configuration = configuration
        self.flow = flow
        self.broadcast = broadcast
        self.table = TransferCoordinator(
            maximumIncomingPerPeer: configuration.transfers.maximumIncomingTransfersPerPeer
        )
    }

    /// The bytes reserved now by all transfers into memory: each one's offered size, from accept to its end.
    var inMemoryReservedBytes: UInt64 { table.inMemoryReservedBytes }

    /// A transfer message from `peer`'s connection, in the order the connection delivered it. Its bytes leave the
    /// receive budget with `charge`: once a file's writer has written them, or else when this returns.
    func received(_ buffer: ByteBuffer, from peer: PeerID, charge: ReceiveCharge) {
        receivedResource(buffer, from: peer, charge: charge)
    }

    func emit(_ event: PeerSessionEvent) {
        broadcast.yield(event)
    }
}
