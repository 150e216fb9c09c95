import ArgumentParser
import Foundation
import HuddleTransport
import HuddleWire
import NIOCore
import NIOPosix

/// The floor of a reliable round trip: a bare NIO handler echoing over mutual TLS 1.3 with the same keys, the
/// same TLS settings and the same kind of client loop (an async task writing a message and awaiting its echo), but
/// none of Huddle's framing, sequencing, session actor or events. `bench_sessions.py` runs it beside the session's
/// round trip, between the same test hosts, and prints the ratio.
struct TLSEcho: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tls-echo",
        abstract: "A bare TLS 1.3 echo: serve with --port, measure with --to."
    )

    @Option(name: .customLong("data-dir")) var dataDirectory: String
    @Option(help: "Serve on this port.") var port: Int?
    @Option(help: "Measure against HOST:PORT.") var to: String?
    @Option var bind = "0.0.0.0"
    @Option var count = 10_000
    @Option var size = 1000

    func run() async throws {
        let identity = try DeviceIdentity.loadOrCreate(in: URL(fileURLWithPath: dataDirectory))
        let tls = try PeerTLS(identity: identity)
        let group = MultiThreadedEventLoopGroup.singleton
        if let port {
            let channel = try await ServerBootstrap(group: group)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let verifier = PeerVerifier(expected: nil, isBlocked: { _ in false })
                        try channel.pipeline.syncOperations.addHandler(tls.serverHandler(verifier: verifier))
                        try channel.pipeline.syncOperations.addHandler(EchoHandler())
                    }
                }
                .bind(host: bind, port: port)
                .get()
            emit(["event": "ready", "port": channel.localAddress?.port ?? 0])
            try await channel.closeFuture.get()
            return
        }
        let (host, remotePort) = try echoTarget(to)
        let waiter = EchoWaiter(size: size)
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let verifier = PeerVerifier(expected: nil, isBlocked: { _ in false })
                    try channel.pipeline.syncOperations.addHandler(try tls.clientHandler(verifier: verifier))
                    try channel.pipeline.syncOperations.addHandler(waiter)
                }
            }
            .connect(host: host, port: remotePort)
            .get()
        let message = ByteBuffer(repeating: 0x61, count: size)
        var samples: [Double] = []
        for index in 0..<count {
            let start = ContinuousClock.now
            let echoed = channel.eventLoop.makePromise(of: Void.self)
            channel.eventLoop.execute {
                waiter.expect(echoed)
                channel.writeAndFlush(message, promise: nil)
            }
            try await echoed.futureResult.get()
            if index >= count / 10 { samples.append(milliseconds(start.duration(to: .now)) * 1000) }
        }
        emit([
            "mode": "tls-echo", "size": size, "count": samples.count, "p50_us": quantile(samples, 0.5),
            "p99_us": quantile(samples, 0.99),
        ])
        try await channel.close()
    }
}

/// The HOST and PORT of an echo's `--to HOST:PORT`.
func echoTarget(_ to: String?) throws -> (host: String, port: Int) {
    guard let to, let colon = to.lastIndex(of: ":"), let port = Int(to[to.index(after: colon)...]) else {
        throw ValidationError("give --port to serve or --to HOST:PORT to measure")
    }
    return (String(to[..<colon]), port)
}

/// Writes back whatever it reads.
final class EchoHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }
}

/// Completes the promise it was given once `size` bytes came back; touched only on the channel's event loop.
final class EchoWaiter: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    let size: Int
    private var received = 0
    private var promise: EventLoopPromise<Void>?

    init(size: Int) { self.size = size }

    func expect(_ promise: EventLoopPromise<Void>) {
        self.promise = promise
        received = 0
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += unwrapInboundIn(data).readableBytes
        if received >= size, let promise {
            self.promise = nil
            promise.succeed()
        }
    }
}
