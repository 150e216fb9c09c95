import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

@testable import Huddle

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
            transferBudget: configuration.transfers.maximumBufferedBytes
        )
        let broadcast = EventBroadcast<PeerSessionEvent>(weigh: { _ in 0 }, release: { _ in })
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

/// Two sessions' transfers joined in memory, without sockets, TLS or a session's peer table: what one side writes
/// to its channel is handed to the other side's transfers in order, as a session's inbox hands them over. The
/// transfers' own I/O is real: partial files, staging directories, the file sinks and the streaming of files.
///
/// Tests of transfer behaviour run on it in milliseconds; `docs/testing.md` lists the few that still need two
/// real sessions.
final class TransferLink: Sendable {
    let ada: TransferEnd
    let bob: TransferEnd
    private let configuration: PeerSessionConfiguration
    private let pumps = NIOLockedValueBox<[Task<Void, Never>]>([])
    private let added = NIOLockedValueBox<[TransferEnd]>([])

    init(configure: (inout PeerSessionConfiguration) -> Void = { _ in }) async throws {
        var configuration = PeerSessionConfiguration()
        configure(&configuration)
        self.configuration = configuration
        ada = TransferEnd(name: "ada", configuration: configuration)
        bob = TransferEnd(name: "bob", configuration: configuration)
        try await connect(ada, bob)
    }

    /// Another side, `name`, connected to `peers`.
    func add(_ name: String, connectedTo peers: [TransferEnd]) async throws -> TransferEnd {
        let end = TransferEnd(name: name, configuration: configuration)
        added.withLockedValue { $0.append(end) }
        for peer in peers { try await connect(end, peer) }
        return end
    }

    /// Connects `one` and `other`: a channel each way, each known to the sender's receive flow, and a pump each way.
    func connect(_ one: TransferEnd, _ other: TransferEnd) async throws {
        for (sender, receiver) in [(one, other), (other, one)] {
            let channel = NIOAsyncTestingChannel()
            try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1))
            sender.channels.withLockedValue { $0[receiver.peerID] = channel }
            sender.devices.withLockedValue { $0[receiver.peerID] = receiver.device }
            sender.flow.connected(receiver.peerID, channel: channel)
        }
        let tasks = [Self.pump(from: one, to: other), Self.pump(from: other, to: one)]
        pumps.withLockedValue { $0 += tasks }
    }

    /// Hands what `sender` writes to `receiver`'s transfers, one message after another, until the channel closes.
    private static func pump(from sender: TransferEnd, to receiver: TransferEnd) -> Task<Void, Never> {
        let (outgoing, incoming) = (sender.channel(to: receiver)!, receiver.channel(to: sender)!)
        return Task {
            while let outbound = try? await outgoing.waitForOutboundWrite(as: PeerOutbound.self) {
                guard case .resource(let buffer) = outbound else { continue }
                _ = receiver.flow.receivedResource(buffer.readableBytes, on: incoming)
                await receiver.transfers.received(buffer, from: sender.peerID)
            }
        }
    }

    /// The connection between `one` and `other` (Ada and Bob if nil) is lost: both sides' transfers hear of it,
    /// as from a session's rules.
    func cut(_ one: TransferEnd? = nil, _ other: TransferEnd? = nil) async throws {
        let (one, other) = (one ?? ada, other ?? bob)
        for (end, peer) in [(one, other), (other, one)] {
            guard let channel = end.channels.withLockedValue({ $0.removeValue(forKey: peer.peerID) }) else { continue }
            _ = try? await channel.finish(acceptAlreadyClosed: true)
            end.flow.disconnected(peer.peerID, channel: channel)
        }
        await one.transfers.transfersEnded(with: other.peerID)
        await other.transfers.transfersEnded(with: one.peerID)
    }

    /// Closes every channel and waits for the pumps to end.
    func close() async {
        for end in [ada, bob] + added.withLockedValue({ $0 }) {
            for channel in end.channels.withLockedValue({ Array($0.values) }) {
                _ = try? await channel.finish(acceptAlreadyClosed: true)
            }
        }
        for pump in pumps.withLockedValue({ $0 }) { await pump.value }
    }

    func stopRecording() {
        for end in [ada, bob] + added.withLockedValue({ $0 }) { end.recorder.stop() }
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
            await link.close()
            link.stopRecording()
        }
        return try await body(link, scope)
    }
}
