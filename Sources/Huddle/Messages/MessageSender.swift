import HuddleTransport
import HuddleWire
import NIOCore

/// Reliable messages on their way out: written straight to each peer's channel (``ReceiveFlow`` knows them), without
/// a hop to the session's actor, so a send costs no thread switch (`docs/design.md`, "What the actor does").
struct MessageSender: Sendable {
    let flow: ReceiveFlow
    /// Where a write the connection refused goes back to the session, to join what it left unacknowledged.
    let inbox: AsyncStream<PeerSession.Inbox>.Continuation
    let maximumMessageSize: Int

    /// Writes `bytes` to each of `peers` (``PeerSession/send(_:to:mode:)``): returns once the message is queued
    /// within each connection's write buffer, waiting while a peer's buffer is full.
    ///
    /// - Throws: ``PeerSessionError`` for the first peer that failed (not connected, too large), before anything
    ///   is queued.
    /// From protocol version 3 on, each message starts with `header` (``ReliableMessageHeader``); a link of
    /// version 2 carries channel 0's ordered messages only.
    func send(_ bytes: [UInt8], to peers: [PeerID], header: ReliableMessageHeader) async throws {
        let limit = maximumMessageSize
        guard bytes.count <= limit else { throw PeerSessionError.messageTooLarge(limit: limit, size: bytes.count) }
        let links = try peers.map { peer in
            guard let (channel, version) = flow.link(to: peer) else { throw PeerSessionError.notConnected(peer) }
            guard version >= 3 || header == ReliableMessageHeader(unordered: false, channel: 0) else {
                throw PeerSessionError.needsNewerPeer(peer, version: version)
            }
            return (peer, channel, version)
        }
        let plain = ByteBuffer(bytes: bytes)
        let headed = links.contains { $0.2 >= 3 } ? ByteBuffer(bytes: header.encoded + bytes) : plain
        var waiting: [EventLoopFuture<Void>] = []
        for (peer, channel, version) in links {
            let writable = channel.isWritable
            let written = write(version >= 3 ? headed : plain, to: peer, on: channel)
            if !writable { waiting.append(written) }
        }
        for future in waiting { _ = try? await future.get() }
    }

    /// Writes one message to `peer`'s `channel` at once. A connection that failed a moment ago, before the session
    /// heard of it, refuses the write: the message joins what that connection left unacknowledged.
    func write(_ buffer: ByteBuffer, to peer: PeerID, on channel: any Channel) -> EventLoopFuture<Void> {
        let written = channel.eventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(PeerOutbound.message(buffer), promise: written)
        let inbox = self.inbox
        written.futureResult.whenFailure { _ in
            inbox.yield(.unsent(buffer, to: peer, channel: ObjectIdentifier(channel)))
        }
        return written.futureResult
    }
}
