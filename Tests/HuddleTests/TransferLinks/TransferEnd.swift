import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

@_spi(Testing) @testable import Huddle

/// One side of a ``TransferLink``: a session's transfers (``SessionTransfers``) with their own receive budget and
/// events, and a channel towards each side it is connected to.
final class TransferEnd: Sendable {
    /// This side's ID, as the other side knows it.
    let peerID: PeerID
    /// This side's device, as the other side verified it.
    let device: DeviceID
    let transfers: SessionTransfers
    let flow: ReceiveFlow
    let recorder: EventRecorder<PeerSessionEvent>
    /// What this side writes to each side it is connected to, by that side's ID.
    let channels = NIOLockedValueBox<[PeerID: NIOAsyncTestingChannel]>([:])
    /// The device of each side this one is connected to, as a session's rules know it once verified.
    let devices = NIOLockedValueBox<[PeerID: DeviceID]>([:])

    init(name: String, configuration: PeerSessionConfiguration) {
        peerID = PeerID(rawValue: name)
        device = DeviceID(subjectPublicKeyInfo: Array(name.utf8))
        let flow = ReceiveFlow(
            budget: configuration.maximumUndeliveredBytes,
            transferBudget: configuration.transfers.maximumBufferedBytes,
            pacing: TransferPacing(configuration.transfers.rateLimits),
            now: { [clock = configuration.clock] in clock.now },
            paused: configuration.receivePaused
        )
        let broadcast = EventBroadcast<PeerSessionEvent>()
        self.flow = flow
        transfers = SessionTransfers(configuration: configuration, flow: flow, broadcast: broadcast)
        recorder = EventRecorder(recording: broadcast.subscribe())
    }

    /// The channel towards `peer`.
    func channel(to peer: TransferEnd) -> NIOAsyncTestingChannel? {
        channels.withLockedValue { $0[peer.peerID] }
    }

    /// The first value `match` finds among the events recorded so far or arriving within `seconds`.
    func wait<T>(seconds: Double = 30, _ match: (PeerSessionEvent) -> T?) async -> T? {
        await recorder.first(within: .seconds(seconds), where: match)
    }

    var events: [PeerSessionEvent] { recorder.events }

    /// The device of `peer`, connected to this side.
    func device(of peer: PeerID) -> DeviceID? { devices.withLockedValue { $0[peer] } }

    /// The next transfer offered to this side.
    func offer() async -> IncomingTransfer? {
        await wait { event in
            if case .transferOffered(let transfer) = event { return transfer }
            return nil
        }
    }

    /// The reason of the next transfer that failed on this side.
    func failure() async -> String? {
        await wait { event in
            if case .transferFailed(_, _, let error) = event, error.code == .transferFailed { return error.reason }
            return nil
        }
    }

    /// Where the next transfer this side received was kept.
    func finished() async -> URL? {
        await wait { event in
            if case .transferFinished(_, _, let url) = event { return url }
            return nil
        }
    }

    /// Waits until a transfer to or from this side has passed `bytes`.
    func transferProgress(atLeast bytes: UInt64) async {
        _ = await wait { event -> Bool? in
            if case .transferProgress(let progress) = event, progress.completed >= bytes { return true }
            return nil
        }
    }

    /// The next error this side reported about a peer.
    func peerError() async -> PeerSessionError? {
        await wait { event in
            if case .peerError(_, let error) = event { return error }
            return nil
        }
    }

    /// Writes `message` to `peer` (the only side this one is connected to, if nil) as it is, outside any
    /// transfer's rules: how a test plays a peer that lies or breaks the protocol.
    func sendRaw(_ message: TransferMessage, to peer: TransferEnd? = nil) async throws {
        let channel = try #require(
            peer.map { self.channel(to: $0) } ?? channels.withLockedValue { $0.count == 1 ? $0.values.first : nil }
        )
        var buffer = channel.allocator.buffer(capacity: 64)
        message.encode(into: &buffer)
        try await channel.writeAndFlush(PeerOutbound.resource(buffer))
    }

    /// Accepts `transfer` into `directory`, as ``PeerSession/acceptTransfer(_:into:)`` does: a directory is staged
    /// under the device of the side that offered it.
    func accept(_ transfer: IncomingTransfer, into directory: URL) async throws {
        let sender = devices.withLockedValue { $0[transfer.peer] }
        try await transfers.acceptTransfer(transfer, into: directory, sender: sender)
    }
}
