import HuddleTransport
import HuddleWire
import NIOCore

/// Sends transfer messages without a wait for each: a send that waits hands over to the event loop and back, which
/// for a 10 KiB file costs more than the file. Writes go out in order, and the call waits for the latest one
/// every ``window`` bytes (and whenever the connection's buffer is full), so at most that much is ever queued
/// beyond the connection's own buffer.
struct ResourcePipeline {
    /// Bytes sent since the last wait.
    private var unconfirmed = 0
    private var latest: EventLoopFuture<Void>?
    /// ``TransferConfiguration/sendWindow``.
    let window: Int

    init(window: Int) {
        self.window = window
    }

    mutating func send(_ message: TransferMessage, to peer: PeerID, through flow: ReceiveFlow) async throws {
        var buffer = ByteBuffer()
        message.encode(into: &buffer)
        try await send(encoded: buffer, to: peer, through: flow)
    }

    /// Sends a message already encoded (a CHUNK read straight into its buffer).
    mutating func send(encoded buffer: ByteBuffer, to peer: PeerID, through flow: ReceiveFlow) async throws {
        guard let channel = flow.channel(for: peer) else { throw PeerSessionError.notConnected(peer) }
        unconfirmed += buffer.readableBytes
        latest = channel.writeAndFlush(PeerOutbound.resource(buffer))
        if unconfirmed >= window || !channel.isWritable { try await drain() }
    }

    /// Waits until everything sent so far is queued within the connection's buffer.
    mutating func drain() async throws {
        defer { (unconfirmed, latest) = (0, nil) }
        do {
            try await latest?.get()
        } catch let error as PeerConnectionError {
            throw PeerSessionError.connection(error)
        }
    }
}
