public import NIOCore
import NIOPosix

/// Asks one DNS server over UDP (RFC 1035 §4.2.1): a message out, the answer with the same ID back, tried again
/// after `timeout`, `attempts` times in all.
public struct UnicastDNSClient: Sendable {
    public var server: SocketAddress
    public var timeout: Duration = .seconds(2)
    public var attempts = 3

    public init(server: SocketAddress) {
        self.server = server
    }

    /// What can go wrong talking to the server.
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        case noAnswer(server: String, after: Duration)

        public var description: String {
            switch self {
            case .noAnswer(let server, let after): "the DNS server \(server) did not answer within \(after)"
            }
        }
    }

    /// Sends `message` (its first two bytes are its ID) and returns the first answer with that ID.
    public func exchange(_ message: [UInt8]) async throws -> [UInt8] {
        let (answers, continuation) = AsyncStream<[UInt8]>.makeStream()
        let id = Array(message.prefix(2))
        let host = server.protocol == .inet6 ? "::" : "0.0.0.0"
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(continuation: continuation))
                }
            }
            .bind(host: host, port: 0)
            .get()
        defer { channel.close(promise: nil) }
        var iterator = answers.makeAsyncIterator()
        for _ in 0..<attempts {
            let envelope = AddressedEnvelope(remoteAddress: server, data: ByteBuffer(bytes: message))
            try await channel.writeAndFlush(envelope)
            let deadline = ContinuousClock.now + timeout
            let timer = Task {
                try? await Task.sleep(until: deadline)
                continuation.yield([])
            }
            while let answer = await iterator.next() {
                if answer.isEmpty, ContinuousClock.now >= deadline { break }
                if answer.count >= 12, Array(answer.prefix(2)) == id {
                    timer.cancel()
                    return answer
                }
            }
            timer.cancel()
        }
        continuation.finish()
        throw Failure.noAnswer(server: "\(server)", after: timeout * attempts)
    }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let continuation: AsyncStream<[UInt8]>.Continuation

        init(continuation: AsyncStream<[UInt8]>.Continuation) {
            self.continuation = continuation
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            continuation.yield(Array(Self.unwrapInboundIn(data).data.readableBytesView))
        }
    }
}
