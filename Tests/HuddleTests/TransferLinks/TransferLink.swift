import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import NIOEmbedded

@testable import Huddle

/// One side of a ``TransferLink``: a session's transfers (``SessionTransfers``) with their own receive budget and
/// events, and the channel towards the other side.
final class TransferEnd: Sendable {
    /// This side's ID, as the other side knows it.
    let peerID: PeerID
    /// This side's device, as the other side verified it.
    let device: DeviceID
    let transfers: SessionTransfers
    let flow: ReceiveFlow
    let recorder: EventRecorder<PeerSessionEvent>
    /// What this side writes to the other side.
    let channel: NIOAsyncTestingChannel

    init(name: String, configuration: PeerSessionConfiguration) {
        peerID = PeerID(rawValue: name)
        device = DeviceID(subjectPublicKeyInfo: Array(name.utf8))
        let flow = ReceiveFlow(
            budget: configuration.maximumUndeliveredBytes,
            transferBudget: configuration.transfers.maximumBufferedBytes
        )
        let broadcast = EventBroadcast<PeerSessionEvent>(weigh: { _ in 0 }, release: { _ in })
        self.flow = flow
        transfers = SessionTransfers(configuration: configuration, flow: flow, broadcast: broadcast)
        recorder = EventRecorder(recording: broadcast.subscribe())
        channel = NIOAsyncTestingChannel()
    }

    /// The first value `match` finds among the events recorded so far or arriving within `seconds`.
    func wait<T>(seconds: Double = 30, _ match: (PeerSessionEvent) -> T?) async -> T? {
        await recorder.first(within: .seconds(seconds), where: match)
    }

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

    /// The next error this side reported about a peer.
    func peerError() async -> PeerSessionError? {
        await wait { event in
            if case .peerError(_, let error) = event { return error }
            return nil
        }
    }

    /// Writes `message` to the other side as it is, outside any transfer's rules: how a test plays a peer that
    /// lies or breaks the protocol.
    func sendRaw(_ message: TransferMessage) async throws {
        var buffer = channel.allocator.buffer(capacity: 64)
        message.encode(into: &buffer)
        try await channel.writeAndFlush(PeerOutbound.resource(buffer))
    }

    /// Accepts `transfer`, offered by `sender`, into `directory`, as ``PeerSession/acceptTransfer(_:into:)`` does.
    func accept(_ transfer: IncomingTransfer, into directory: URL, from sender: TransferEnd) async throws {
        try await transfers.acceptTransfer(transfer, into: directory, sender: sender.device)
    }
}

/// Two sessions' transfers joined in memory, without sockets, TLS or a session's peer table: what one side writes
/// to its channel is handed to the other side's transfers in order, as a session's inbox hands them over. The
/// transfers' own I/O is real: partial files, staging directories, the file sinks and the streaming of files.
///
/// Tests of transfer behaviour run on it in milliseconds; `docs/testing.md` lists the few that still need two
/// real sessions.
final class TransferLink: Sendable {
    let ada: TransferEnd
    let bob: TransferEnd
    private let pumps: [Task<Void, Never>]

    init(configure: (inout PeerSessionConfiguration) -> Void = { _ in }) async throws {
        var configuration = PeerSessionConfiguration()
        configure(&configuration)
        ada = TransferEnd(name: "ada", configuration: configuration)
        bob = TransferEnd(name: "bob", configuration: configuration)
        for end in [ada, bob] { try await end.channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)) }
        ada.flow.connected(bob.peerID, channel: ada.channel)
        bob.flow.connected(ada.peerID, channel: bob.channel)
        pumps = [Self.pump(from: ada, to: bob), Self.pump(from: bob, to: ada)]
    }

    /// Hands what `sender` writes to `receiver`'s transfers, one message after another, until the channel closes.
    private static func pump(from sender: TransferEnd, to receiver: TransferEnd) -> Task<Void, Never> {
        Task {
            while let outbound = try? await sender.channel.waitForOutboundWrite(as: PeerOutbound.self) {
                guard case .resource(let buffer) = outbound else { continue }
                _ = receiver.flow.receivedResource(buffer.readableBytes, on: receiver.channel)
                await receiver.transfers.received(buffer, from: sender.peerID)
            }
        }
    }

    /// The connection is lost: both sides' transfers hear of it, as from a session's rules.
    func cut() async throws {
        try await close()
        ada.flow.disconnected(bob.peerID, channel: ada.channel)
        bob.flow.disconnected(ada.peerID, channel: bob.channel)
        await ada.transfers.transfersEnded(with: bob.peerID)
        await bob.transfers.transfersEnded(with: ada.peerID)
    }

    /// Closes both channels and waits for the pumps to end.
    func close() async throws {
        for end in [ada, bob] where end.channel.isActive {
            _ = try? await end.channel.finish(acceptAlreadyClosed: true)
        }
        for pump in pumps { await pump.value }
    }
}

/// Runs `body` with a ``TransferLink`` in a ``TestScope`` (for scratch directories), closing the link afterwards,
/// also when `body` throws.
func withTransferLink<T>(
    configure: (inout PeerSessionConfiguration) -> Void = { _ in },
    _ body: (TransferLink, TestScope) async throws -> T
) async throws -> T {
    try await withTestScope { scope in
        let link = try await TransferLink(configure: configure)
        scope.onExit {
            try? await link.close()
            link.ada.recorder.stop()
            link.bob.recorder.stop()
        }
        return try await body(link, scope)
    }
}
