import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

@testable import Huddle

/// Two sessions' transfers joined in memory, without sockets, TLS or a session's peer table: what one side writes
/// to its channel is handed to the other side's transfers in order, as a session's inbox hands them over, and the
/// write completes only then (see ``LinkWrites``). The transfers' own I/O is real: partial files, staging
/// directories, the file sinks and the streaming of files.
///
/// Tests of transfer behaviour run on it in milliseconds; `docs/testing.md` lists the few that still need two
/// real sessions.
final class TransferLink: Sendable {
    /// One direction between two sides: the sender's channel, what it writes, and the gate before the receiver.
    struct Direction: Sendable {
        let sender: TransferEnd
        let receiver: TransferEnd
        let channel: NIOAsyncTestingChannel
        let writes: LinkWrites
        let gate: DeliveryGate
        let isCut: NIOLockedValueBox<Bool>
    }

    let ada: TransferEnd
    let bob: TransferEnd
    private let configuration: PeerSessionConfiguration
    private let directions = NIOLockedValueBox<[Direction]>([])
    private let pumps = NIOLockedValueBox<[Task<Void, Never>]>([])
    private let added = NIOLockedValueBox<[TransferEnd]>([])

    init(_ configuration: PeerSessionConfiguration = .init()) async throws {
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
            let writes = LinkWrites()
            let channel = NIOAsyncTestingChannel()
            try await channel.pipeline.addHandler(writes)
            try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1))
            sender.channels.withLockedValue { $0[receiver.peerID] = channel }
            sender.devices.withLockedValue { $0[receiver.peerID] = receiver.device }
            sender.flow.connected(receiver.peerID, channel: channel, device: receiver.device)
            let direction = Direction(
                sender: sender,
                receiver: receiver,
                channel: channel,
                writes: writes,
                gate: DeliveryGate(),
                isCut: NIOLockedValueBox(false)
            )
            directions.withLockedValue { $0.append(direction) }
            let pump = Self.pump(direction)
            pumps.withLockedValue { $0.append(pump) }
        }
    }

    /// Hands what the sender writes to the receiver's transfers, one message after another, and completes each
    /// write once handed over; after a cut, writes fail as on a closed connection.
    private static func pump(_ direction: Direction) -> Task<Void, Never> {
        Task {
            let (sender, receiver) = (direction.sender, direction.receiver)
            for await write in direction.writes.writes {
                if case .resource(let buffer) = write.message {
                    await direction.gate.pass(buffer)
                    guard !direction.isCut.withLockedValue({ $0 }) else {
                        write.written?.fail(ChannelError.ioOnClosedChannel)
                        continue
                    }
                    let incoming = receiver.channel(to: sender) ?? direction.channel
                    _ = receiver.flow.receivedResource(buffer.readableBytes, on: incoming)
                    let charge = receiver.flow.charge(resource: buffer.readableBytes)
                    await receiver.transfers.received(buffer, from: sender.peerID, charge: charge)
                }
                write.written?.succeed()
            }
        }
    }

    private func direction(to receiver: TransferEnd, from sender: TransferEnd?) -> Direction? {
        directions.withLockedValue { all in
            all.last { $0.receiver === receiver && (sender == nil || $0.sender === sender) }
        }
    }

    /// Holds delivery to `receiver` (from its only peer, or `sender`) at the first message for which `predicate`
    /// is true; ``held(to:from:)`` waits for it, ``release(to:from:)`` lets it go.
    func hold(
        to receiver: TransferEnd,
        from sender: TransferEnd? = nil,
        when predicate: @escaping @Sendable (TransferMessage) -> Bool
    ) async {
        await direction(to: receiver, from: sender)?.gate.hold(when: predicate)
    }

    /// Whether delivery to `receiver` is held now or within 30 s.
    func held(to receiver: TransferEnd, from sender: TransferEnd? = nil) async -> Bool {
        await direction(to: receiver, from: sender)?.gate.held() ?? false
    }

    func release(to receiver: TransferEnd, from sender: TransferEnd? = nil) async {
        await direction(to: receiver, from: sender)?.gate.release()
    }

    /// The connection between `one` and `other` (Ada and Bob if nil) is lost: what is on the way is dropped, and
    /// both sides' transfers hear of it, as from a session's rules.
    func cut(_ one: TransferEnd? = nil, _ other: TransferEnd? = nil) async {
        let (one, other) = (one ?? ada, other ?? bob)
        let ending = directions.withLockedValue { all in
            all.filter { ($0.sender === one && $0.receiver === other) || ($0.sender === other && $0.receiver === one) }
        }
        for direction in ending {
            direction.isCut.withLockedValue { $0 = true }
            direction.writes.finish()
            await direction.gate.release()
            direction.sender.channels.withLockedValue { _ = $0.removeValue(forKey: direction.receiver.peerID) }
            direction.sender.flow.disconnected(direction.receiver.peerID, channel: direction.channel)
        }
        await one.transfers.transfersEnded(with: other.peerID)
        await other.transfers.transfersEnded(with: one.peerID)
    }

    /// Ends every direction and waits for the pumps to end.
    func close() async {
        for direction in directions.withLockedValue({ $0 }) {
            direction.writes.finish()
            await direction.gate.release()
            _ = try? await direction.channel.finish(acceptAlreadyClosed: true)
        }
        for pump in pumps.withLockedValue({ $0 }) { await pump.value }
    }

    func stopRecording() {
        for end in [ada, bob] + added.withLockedValue({ $0 }) { end.recorder.stop() }
    }
}

/// Runs `body` with a ``TransferLink`` whose sides use `configuration`, in a ``TestScope`` (for scratch
/// directories), closing the link afterwards, also when `body` throws.
func withTransferLink<T>(
    _ configuration: PeerSessionConfiguration = .init(),
    _ body: (TransferLink, TestScope) async throws -> T
) async throws -> T {
    try await withTestScope { scope in
        let link = try await TransferLink(configuration)
        scope.onExit {
            await link.close()
            link.stopRecording()
        }
        return try await body(link, scope)
    }
}
