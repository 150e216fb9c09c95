import ArgumentParser
import NIOCore
import NIOPosix

/// The floor of a datagram round trip: a bare NIO UDP handler echoing each datagram, and a client loop of the
/// same kind as the session's PINGs (an async task writing one datagram and awaiting its echo), with none of
/// Huddle's sealing, replay window, actor or PONG. `bench_realtime.py` runs it beside `client --mode ping`.
struct UDPEcho: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "udp-echo",
        abstract: "A bare UDP echo: serve with --port, measure with --to."
    )

    @Option(help: "Serve on this port.") var port: Int?
    @Option(help: "Measure against HOST:PORT.") var to: String?
    @Option var bind = "0.0.0.0"
    @Option var count = 10_000
    @Option var size = 64

    func run() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        if let port {
            let channel = try await DatagramBootstrap(group: group)
                .channelInitializer { $0.pipeline.addHandler(DatagramEchoHandler()) }
                .bind(host: bind, port: port)
                .get()
            emit(["event": "ready", "port": channel.localAddress?.port ?? 0])
            try await channel.closeFuture.get()
            return
        }
        let (host, remotePort) = try echoTarget(to)
        let remote = try SocketAddress.makeAddressResolvingHost(host, port: remotePort)
        let waiter = DatagramEchoWaiter()
        let channel = try await DatagramBootstrap(group: group)
            .channelInitializer { $0.pipeline.addHandler(waiter) }
            .bind(host: "0.0.0.0", port: 0)
            .get()
        let payload = ByteBuffer(repeating: 0x61, count: size)
        var samples: [Double] = []
        var lost = 0
        for index in 0..<count {
            let start = ContinuousClock.now
            let echoed = channel.eventLoop.makePromise(of: Void.self)
            channel.eventLoop.execute {
                waiter.expect(echoed)
                channel.writeAndFlush(AddressedEnvelope(remoteAddress: remote, data: payload), promise: nil)
            }
            // A datagram lost on the way: given up after a second, as a PING is.
            let timeout = channel.eventLoop.scheduleTask(in: .seconds(1)) { waiter.giveUp(echoed) }
            do {
                try await echoed.futureResult.get()
                timeout.cancel()
            } catch {
                lost += 1
                continue
            }
            if index >= count / 10 { samples.append(milliseconds(start.duration(to: .now)) * 1000) }
        }
        emit([
            "mode": "udp-echo", "size": size, "count": samples.count, "lost": lost, "p50_us": quantile(samples, 0.5),
            "p99_us": quantile(samples, 0.99),
        ])
        try await channel.close()
    }
}

/// Sends every datagram back where it came from.
final class DatagramEchoHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }
}

/// Completes the promise it was given at the next datagram; touched only on the channel's event loop.
final class DatagramEchoWaiter: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private var promise: EventLoopPromise<Void>?

    func expect(_ promise: EventLoopPromise<Void>) { self.promise = promise }

    /// No echo of the datagram `promise` waits for came in time: it fails, and a late echo completes nothing.
    func giveUp(_ promise: EventLoopPromise<Void>) {
        guard let waiting = self.promise, waiting.futureResult === promise.futureResult else { return }
        self.promise = nil
        promise.fail(ChannelError.ioOnClosedChannel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        promise?.succeed()
        promise = nil
    }
}
