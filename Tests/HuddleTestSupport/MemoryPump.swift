import NIOCore
import NIOEmbedded

/// One direction of a connection in memory (``MemoryNetwork``, ``MemoryStreams``): what one channel writes, the
/// other reads, in order.
enum MemoryPump {
    /// Hands what `from` writes to `to` (except while `lost` says it is lost), until `from` closes; then `to` reads
    /// the end of the stream and closes.
    static func start(
        from: NIOAsyncTestingChannel,
        to: NIOAsyncTestingChannel,
        unless lost: @escaping @Sendable () -> Bool = { false }
    ) -> Task<Void, Never> {
        Task {
            while let bytes = try? await from.waitForOutboundWrite(as: ByteBuffer.self) {
                // A socket never reads zero bytes (TLS takes such a read for the end of the stream): an empty write
                // (an HTTP message's end, say) sends nothing.
                guard to.isActive, !lost(), bytes.readableBytes > 0 else { continue }
                _ = try? await to.writeInbound(bytes)
                // What the handlers queued on their loop while reading (NIOSSL's next flight after the verifier's
                // answer, the handler's replies) runs now.
                await to.testingEventLoop.run()
            }
            guard to.isActive, !lost() else { return }
            // A socket whose peer is gone: closed without waiting for a close_notify that cannot come.
            to.close(promise: nil)
            await to.testingEventLoop.advanceTime(by: .seconds(60))
        }
    }
}
