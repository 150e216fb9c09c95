import Crypto
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import NIOPosix
import NIOTLS
import Synchronization

/// A raw initiator that grinds the short code: TLS with its own key, HELLO, a pairing CONNECT_REQUEST with a real
/// commitment, and as soon as the responder's nonce arrives it could compute the code, so it walks away without
/// revealing (the attack the pairing budget bounds).
enum PairingGrinder {
    enum Outcome: Equatable {
        /// The responder sent its nonce: one draw at the code.
        case nonce
        /// The responder closed with this reason (`nil`: without one) before any nonce.
        case refused(PeerCloseReason?)
    }

    /// One run against `address` in `network`, under a fresh key unless `identity` is given.
    static func run(
        against address: SocketAddress,
        in network: MemoryNetwork,
        sessionType: String,
        instance: String = "grinder",
        identity: DeviceIdentity? = nil
    ) async throws -> Outcome {
        let identity = try identity ?? DeviceIdentity.ephemeral()
        let tls = try PeerTLS(identity: identity)
        let verifier = PeerVerifier(expected: nil, isBlocked: { _ in false })
        let promise = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Outcome.self)
        let hello = PeerHello(
            versions: PeerHandshakeConfiguration().versions,
            sessionType: sessionType,
            instance: instance,
            displayName: "Mallory",
            mode: 0x70
        )
        let install: @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void = { pipeline in
            try pipeline.addHandler(try tls.clientHandler(verifier: verifier))
            try pipeline.addHandler(ByteToMessageHandler(PeerFrameDecoder()))
            try pipeline.addHandler(MessageToByteHandler(PeerFrameEncoder()))
            try pipeline.addHandler(
                GrinderHandler(hello: hello, fingerprint: identity.fingerprint, verifier: verifier, outcome: promise)
            )
        }
        let channel = try await network.dial(address, installing: install)
        defer { channel.close(promise: nil) }
        return try await promise.futureResult.get()
    }
}

final class GrinderHandler: ChannelInboundHandler {
    typealias InboundIn = PeerFrame
    typealias OutboundOut = PeerFrame

    let hello: PeerHello
    let fingerprint: [UInt8]
    let verifier: PeerVerifier
    let outcome: EventLoopPromise<PairingGrinder.Outcome>
    var done = false

    init(
        hello: PeerHello,
        fingerprint: [UInt8],
        verifier: PeerVerifier,
        outcome: EventLoopPromise<PairingGrinder.Outcome>
    ) {
        self.hello = hello
        self.fingerprint = fingerprint
        self.verifier = verifier
        self.outcome = outcome
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { send(.hello(hello), context: context) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done, let message = try? PeerControlMessage(decoding: unwrapInboundIn(data).payload) else { return }
        switch message {
        case .hello:
            let commitment = ShortAuthenticationString.commitment(
                initiatorFingerprint: fingerprint,
                responderFingerprint: verifier.presented?.bytes ?? [],
                initiatorNonce: Array(SHA256.hash(data: Array("the grinder's nonce".utf8)))
            )
            send(
                .connectRequest(PeerConnectRequest(pairing: true, commitment: commitment, context: [])),
                context: context
            )
        case .sasNonce:
            finish(.nonce, context: context)
        case .close(let reason):
            finish(.refused(reason), context: context)
        case .decision(let decision) where !decision.accept:
            finish(.refused(decision.reason), context: context)
        default:
            finish(.refused(nil), context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done {
            done = true
            outcome.succeed(.refused(nil))
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func finish(_ result: PairingGrinder.Outcome, context: ChannelHandlerContext) {
        done = true
        outcome.succeed(result)
        context.close(promise: nil)
    }

    func send(_ message: PeerControlMessage, context: ChannelHandlerContext) {
        var payload = context.channel.allocator.buffer(capacity: 64)
        message.encode(into: &payload)
        context.writeAndFlush(
            wrapOutboundOut(PeerFrame(kind: .control, streamID: PeerFrame.controlStream, payload: payload)),
            promise: nil
        )
    }
}
