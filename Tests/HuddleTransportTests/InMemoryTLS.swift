import HuddleTestSupport
import HuddleWire
import NIOCore
import NIOEmbedded
import NIOSSL

@_spi(Testing) @testable import HuddleTransport

/// A TLS connection in memory: two `EmbeddedChannel`s on one `EmbeddedEventLoop`, real NIOSSL handlers on both
/// ends, and the bytes each end writes handed to the other by ``run()``. One end is a Huddle connection with the
/// pipeline `PeerChannels` installs; the other is a TLS peer of the test's making. No socket, and no time passes:
/// the handshake deadline never fires unless a test moves the loop's clock.
///
/// An `EmbeddedEventLoop` belongs to the thread that made it: use one from a synchronous test, or from one task.
final class InMemoryTLS {
    let loop = EmbeddedEventLoop()
    /// The Huddle end.
    let huddle: EmbeddedChannel
    /// The end of the test's making.
    let other: EmbeddedChannel
    /// What the Huddle end reported, in order.
    let log = EventLog()
    let verifier: PeerVerifier
    /// What the other end saw.
    let otherLog = RawTLSLog()

    /// What the other end reported, when it is a Huddle connection too.
    let otherEvents = EventLog()

    /// What the other end of the connection is.
    enum OtherEnd {
        /// A TLS peer of the test's making (server when the Huddle end dials, client when it listens), or one that
        /// speaks plaintext (nil); it writes `sendAfterHandshake` as soon as its handshake completes.
        case raw(TLSConfiguration?, sendAfterHandshake: ByteBuffer? = nil)
        /// A Huddle connection of `peer`, in the other role.
        case huddle(TransportPeer, expecting: DeviceID? = nil)
    }

    /// The Huddle end as `role` for `peer`, expecting `expected` when it dials, against `otherEnd`.
    init(
        _ peer: TransportPeer,
        as role: PeerRole,
        against otherEnd: OtherEnd,
        expecting expected: DeviceID? = nil,
        configuration: PeerConnectionConfiguration = .init()
    ) throws {
        huddle = EmbeddedChannel(loop: loop)
        other = EmbeddedChannel(loop: loop)
        verifier = peer.verifier(expecting: expected)
        try Self.install(peer, as: role, verifier: verifier, log: log, configuration: configuration, on: huddle)
        switch otherEnd {
        case .raw(let otherTLS, let sendAfterHandshake):
            if let otherTLS {
                let context = try NIOSSLContext(configuration: otherTLS)
                let tls: any ChannelHandler =
                    role == .initiator
                    ? NIOSSLServerHandler(context: context)
                    : try NIOSSLClientHandler(context: context, serverHostname: nil)
                try other.pipeline.syncOperations.addHandler(tls)
            }
            try other.pipeline.syncOperations.addHandler(
                RawTLSRecorder(log: otherLog, sendAfterHandshake: sendAfterHandshake)
            )
        case .huddle(let otherPeer, let otherExpected):
            let otherRole: PeerRole = role == .initiator ? .responder : .initiator
            let otherVerifier = otherPeer.verifier(expecting: otherExpected)
            try Self.install(
                otherPeer,
                as: otherRole,
                verifier: otherVerifier,
                log: otherEvents,
                configuration: configuration,
                on: other
            )
        }
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: 4433)
        // The server end is up first, as a listener's accepted socket is before the client's first flight.
        for channel in role == .initiator ? [other, huddle] : [huddle, other] {
            try channel.connect(to: address).wait()
        }
    }

    /// The pipeline `PeerChannels` installs, with NIOSSL as `role` says.
    private static func install(
        _ peer: TransportPeer,
        as role: PeerRole,
        verifier: PeerVerifier,
        log: EventLog,
        configuration: PeerConnectionConfiguration,
        on channel: EmbeddedChannel
    ) throws {
        let handler: any ChannelHandler =
            role == .initiator
            ? try peer.tls.clientHandler(verifier: verifier) : peer.tls.serverHandler(verifier: verifier)
        try PeerChannels.install(
            handler,
            wiring: (peer.setup(role, configuration: configuration), verifier, log.sink),
            on: channel.pipeline.syncOperations
        )
    }

    /// Writes `outbound` on `channel`, as a session does, and lets both ends answer.
    func write(_ outbound: PeerOutbound, on channel: EmbeddedChannel) throws {
        channel.writeAndFlush(outbound, promise: nil)
        try run()
    }

    /// Moves bytes both ways until neither end has more to say. When an end closes, the other reads the end of
    /// the stream, as from a closed socket.
    func run() throws {
        var moved = true
        while moved {
            moved = false
            loop.run()
            for (from, to) in [(huddle, other), (other, huddle)] {
                while let bytes = try from.readOutbound(as: ByteBuffer.self) {
                    moved = true
                    guard to.isActive, !endOfStream.contains(ObjectIdentifier(to)) else { continue }
                    try to.writeInbound(bytes)
                    loop.run()
                }
                if !from.isActive, to.isActive, endOfStream.insert(ObjectIdentifier(to)).inserted {
                    moved = true
                    to.pipeline.fireChannelInactive()
                    loop.run()
                }
            }
        }
    }

    /// The ends that have read the end of the stream.
    private var endOfStream: Set<ObjectIdentifier> = []

    /// Whether the end has closed, or read the end of the stream.
    func isOver(_ channel: EmbeddedChannel) -> Bool {
        !channel.isActive || endOfStream.contains(ObjectIdentifier(channel))
    }

    /// The other end writes `bytes` (through its TLS, if it has one).
    func otherSends(_ bytes: [UInt8]) throws {
        try other.writeAndFlush(ByteBuffer(bytes: bytes)).wait()
        try run()
    }

    /// Every event of the Huddle end so far.
    var events: [PeerConnectionEvent] { log.recorder.events }

    /// Closes what is still open, without complaint about what is left in it: both ends close, their close_notify
    /// alerts cross, and time moves past any wait for one that never comes.
    func finish() {
        for channel in [huddle, other] where channel.isActive { channel.close(promise: nil) }
        try? run()
        loop.advanceTime(by: .seconds(60))
        try? run()
        for channel in [huddle, other] { _ = try? channel.finish(acceptAlreadyClosed: true) }
    }
}
