import Crypto
public import HuddleWire
public import NIOCore
import NIOSSL
import NIOTLS

/// Drives `PeerHandshake` over a TLS channel, then carries messages and heartbeats.
///
/// A thin layer: the handshake decisions are the state machine's; this handler reads the peer's key from TLS,
/// turns frames into messages and actions into frames, and keeps the timers.
public final class PeerConnectionHandler: ChannelDuplexHandler {
    public typealias InboundIn = PeerFrame
    public typealias OutboundIn = PeerOutbound
    public typealias OutboundOut = PeerFrame

    /// Everything a connection needs to know about this side.
    public struct Setup: Sendable {
        public var role: PeerRole
        public var hello: PeerHello
        public var fingerprint: [UInt8]
        public var context: [UInt8]
        public var configuration: PeerConnectionConfiguration
        public var trust: @Sendable (DeviceID) -> PeerHandshake.Trust
        /// The accepted connection's place among the unauthenticated ones; released at the first decision.
        public var admissionTicket: PeerAdmission.Ticket?
        /// Told of every whole message; when it says so, the connection stops reading until resumed.
        public var receiveGate: (any PeerReceiveGate)?
        /// Charged before a pairing run starts; without one, every run is granted.
        public var pairingGate: PairingGate?
        /// The initiator's: a connection, only an introduction (``PeerConnectionEvent/introduced(_:version:)``), or
        /// pairing with a link.
        public var purpose = PeerHandshake.Purpose.connect
        /// The responder's issued pairing links; without them every link proof is refused.
        public var pairingLinks: PairingLinks?

        public init(
            role: PeerRole,
            hello: PeerHello,
            fingerprint: [UInt8],
            context: [UInt8],
            configuration: PeerConnectionConfiguration,
            receiveGate: (any PeerReceiveGate)? = nil,
            pairingGate: PairingGate? = nil,
            trust: @escaping @Sendable (DeviceID) -> PeerHandshake.Trust
        ) {
            self.receiveGate = receiveGate
            self.pairingGate = pairingGate
            self.role = role
            self.hello = hello
            self.fingerprint = fingerprint
            self.context = context
            self.configuration = configuration
            self.trust = trust
        }
    }

    let setup: Setup
    let verifier: PeerVerifier
    let sink: @Sendable (PeerConnectionEvent) -> Void
    var machine: PeerHandshake?
    /// This connection's pairing run, from the budget's grant until it pairs or the connection ends.
    var pairingRun: PairingBudget.Run?
    /// Set once the responder's nonce went out or came in: from then on the run was a draw at the code.
    var drewCode = false
    var timer: Scheduled<Void>?
    /// An ACK is queued on the event loop, to go after the work queued before it.
    var acknowledgementQueued = false
    /// Messages being reassembled, by stream.
    var incoming: [UInt32: ByteBuffer] = [:]
    /// The `ContinuousClock` instant and the event loop's time, read together when the handler was added: the
    /// handler's time is the event loop's (`now(_:)`), in the instants the handshake machine works in.
    var clockOrigin = (instant: ContinuousClock.now, loop: NIODeadline.now())
    /// The rules after the handshake: heartbeat, limits, sequence numbers, the goodbye wait.
    var phase: ConnectedPhase
    var failure: PeerConnectionError?
    var closedReported = false
    var sentGoodbye = false
    /// Flush coalescing: the first flush in a turn of the event loop goes out at once (no added latency); later
    /// ones in the same turn wait for one flush queued behind the writes already waiting.
    enum FlushState { case idle, flushed, queued }
    var flushState = FlushState.idle
    /// Sends waiting for the socket to drain below the channel's low water mark (backpressure).
    var waitingForWritability: [EventLoopPromise<Void>] = []

    public init(setup: Setup, verifier: PeerVerifier, sink: @escaping @Sendable (PeerConnectionEvent) -> Void) {
        self.setup = setup
        self.verifier = verifier
        self.sink = sink
        phase = ConnectedPhase(configuration: setup.configuration, now: clockOrigin.instant)
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        clockOrigin = (ContinuousClock.now, context.eventLoop.now)
        phase = ConnectedPhase(configuration: setup.configuration, now: clockOrigin.instant)
        schedule(after: setup.configuration.tlsHandshakeTimeout, context: context) { handler, context in
            guard handler.machine == nil else { return }
            handler.abort(.tlsHandshakeTimedOut, context: context)
        }
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case TLSUserEvent.handshakeCompleted(let negotiated) = event else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        guard negotiated == PeerTLS.applicationProtocol else {
            abort(.tls("the peer does not speak \(PeerTLS.applicationProtocol)"), context: context)
            return
        }
        guard let remote = verifier.presented else {
            abort(.tls("no verified peer certificate"), context: context)
            return
        }
        sink(.authenticated(remote))
        let now = self.now(context)
        var machine = PeerHandshake(
            role: setup.role,
            purpose: setup.purpose,
            localHello: setup.hello,
            localFingerprint: setup.fingerprint,
            remoteFingerprint: remote.bytes,
            trust: setup.trust(remote),
            context: setup.context,
            secrets: .init(nonce: Self.randomBytes(), keyShare: Self.randomBytes()),
            now: now,
            configuration: setup.configuration.handshake
        )
        let actions = machine.start()
        self.machine = machine
        phase.heard(now: now)
        perform(actions, context: context)
        scheduleHandshakeDeadline(context: context)
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Failed (a protocol violation, a refusal, the peer's CLOSE): frames already read behind the cause are not
        // taken, not even the rest of the same read.
        guard failure == nil else { return }
        let frame = unwrapInboundIn(data)
        phase.heard(now: now(context))
        guard var machine else {
            abort(.wire(.protocolViolation(state: "TLS", message: "frame before TLS")), context: context)
            return
        }
        switch (frame.kind, frame.streamID) {
        case (.control, PeerFrame.controlStream):
            let message: PeerControlMessage
            do {
                message = try PeerControlMessage(decoding: frame.payload)
            } catch {
                fail(error as? PeerWireError ?? .malformedMessage("\(error)"), context: context)
                return
            }
            if machine.isConnected {
                receivedWhileConnected(message, context: context)
            } else {
                if case .sasNonce = message { drewCode = true }
                let actions = machine.received(message, size: frame.payload.readableBytes, now: now(context))
                self.machine = machine
                perform(actions, context: context)
            }
        case (.data, PeerFrame.messageStream), (.data, PeerFrame.resourceStream):
            guard machine.isConnected else {
                let actions = machine.receivedApplicationData()
                self.machine = machine
                perform(actions, context: context)
                return
            }
            receivedData(frame, context: context)
        default:
            fail(
                .protocolViolation(
                    state: "connected",
                    message: "frame kind \(frame.kind.rawValue) on stream \(frame.streamID)"
                ),
                context: context
            )
        }
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .message(let message), .resource(let message):
            let stream: UInt32
            if case .resource = unwrapOutboundIn(data) {
                stream = PeerFrame.resourceStream
            } else {
                stream = PeerFrame.messageStream
            }
            guard machine?.isConnected == true, failure == nil else {
                promise?.fail(PeerConnectionError.notConnected)
                return
            }
            guard message.readableBytes <= setup.configuration.maximumMessageSize else {
                promise?.fail(
                    PeerWireError.messageTooLarge(
                        limit: setup.configuration.maximumMessageSize,
                        declared: message.readableBytes
                    )
                )
                return
            }
            writeMessage(message, stream: stream, context: context, promise: nil)
            if stream == PeerFrame.messageStream { retain(message, context: context) }
            // The send completes once the message is queued within the write buffer's high water mark; past it,
            // when the peer has drained enough. A slow peer holds up only its own sends.
            if context.channel.isWritable {
                promise?.succeed()
            } else if let promise {
                waitingForWritability.append(promise)
            }
        case .resume(let first, let redeliver):
            guard machine?.isConnected == true, failure == nil, phase.canResume else {
                promise?.fail(PeerConnectionError.notConnected)
                return
            }
            resume(from: first, redeliver: redeliver, context: context)
            promise?.succeed()
        case .decision(let accept):
            guard var machine else {
                promise?.fail(PeerConnectionError.notConnected)
                return
            }
            let actions = machine.decide(accept: accept, now: now(context))
            self.machine = machine
            perform(actions, context: context)
            promise?.succeed()
        case .close(let reason):
            goodbye(reason, context: context)
            promise?.succeed()
        }
    }

    /// Messages written back to back from other threads are flushed together — one batch of TLS records and one
    /// system call — while a lone message is flushed at once.
    public func flush(context: ChannelHandlerContext) {
        // With an `acknowledgementDelay`, a pending ACK rides along with what goes out (`docs/wire-protocol.md` §6.2).
        if setup.configuration.acknowledgementDelay != nil { writePendingAcknowledgement(context: context) }
        switch flushState {
        case .idle:
            context.flush()
            flushState = .flushed
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.execute {
                let (handler, context) = bound.value
                if handler.flushState == .queued { context.flush() }
                handler.flushState = .idle
            }
        case .flushed:
            flushState = .queued
        case .queued:
            break
        }
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        acknowledgeAfterReads(context: context)
        context.fireChannelReadComplete()
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let wire = error as? PeerWireError {
            fail(wire, context: context)
        } else if let rejection = verifier.rejection {
            abort(rejection, context: context)
        } else if error is NIOSSLError || error is BoringSSLError {
            abort(.tls("\(error)"), context: context)
        } else {
            abort(.connectionLost, context: context)
        }
    }

    public func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            let waiting = waitingForWritability
            waitingForWritability = []
            for promise in waiting { promise.succeed() }
        }
        context.fireChannelWritabilityChanged()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        setup.admissionTicket?.release()
        closePairingRun(paired: false)
        timer?.cancel()
        let waiting = waitingForWritability
        waitingForWritability = []
        for promise in waiting { promise.fail(PeerConnectionError.notConnected) }
        if failure == nil && !sentGoodbye, let rejection = verifier.rejection { failure = rejection }
        if failure == nil && !sentGoodbye && machine?.isConnected != true { failure = .connectionLost }
        if failure == nil && !sentGoodbye && machine?.isConnected == true { failure = .connectionLost }
        report(.closed(failure), context: context)
        context.fireChannelInactive()
    }
}
