import HuddleTransport
import HuddleWire
import NIOCore

@testable import Huddle

extension PeerSession {
    /// Sends one transfer message to `peer` as it is, outside any transfer's rules: how the tests play a peer that
    /// lies or breaks the protocol.
    nonisolated func sendResource(_ message: TransferMessage, to peer: PeerID) async throws {
        guard let channel = flow.channel(for: peer) else { throw PeerSessionError.notConnected(peer) }
        var buffer = channel.allocator.buffer(capacity: 64)
        message.encode(into: &buffer)
        do {
            try await channel.writeAndFlush(PeerOutbound.resource(buffer))
        } catch let error as PeerConnectionError {
            throw PeerSessionError.connection(error)
        }
    }
}
