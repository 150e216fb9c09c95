import HuddleTestSupport
import HuddleWire
import NIOCore
import NIOEmbedded
import NIOSSL
import NIOTLS

@_spi(Testing) @testable import HuddleTransport

/// One end of a Huddle connection on an `EmbeddedChannel`: the pipeline `PeerChannels` installs, with a
/// pass-through where TLS would be. Time is the channel's `EmbeddedEventLoop`: no timer fires until a test moves
/// it with `advance(by:)`, and then the handler's timers and the times it compares move together.
///
/// TLS is stood in for at the two points where the handler meets it, the same ones NIOSSL uses: the verifier's
/// callback gets the peer's certificate, and the handshake's end is NIOSSL's `TLSUserEvent.handshakeCompleted`.
/// Everything else the connection sends and reads is bytes, decoded and encoded with the wire codec.
///
/// An `EmbeddedEventLoop` belongs to the thread that made it: use one from a synchronous test only.
final class EmbeddedConnection {
    let loop = EmbeddedEventLoop()
    let channel: EmbeddedChannel
    let verifier: PeerVerifier
    /// What the handler reported, in order. The handler reports on the loop, which here is the test's thread:
    /// an event is in `events.events` as soon as the call that caused it returns.
    let events = EventRecorder<PeerConnectionEvent>()
    let configuration: PeerConnectionConfiguration
    /// Called on the loop with each event after it is recorded, as an owner that reads the events on the loop would
    /// be (a test sets it).
    let onEvent = EventTap()

    /// What stands where TLS would be.
    let tls = TLSStandIn()

    init(
        _ local: TransportPeer,
        role: PeerRole,
        configuration: PeerConnectionConfiguration = .init(),
        admissionTicket: PeerAdmission.Ticket? = nil
    ) throws {
        channel = EmbeddedChannel(loop: loop)
        verifier = local.verifier()
        self.configuration = configuration
        var setup = local.setup(role, configuration: configuration)
        setup.admissionTicket = admissionTicket
        let (events, onEvent) = (self.events, self.onEvent)
        try PeerChannels.install(
            tls,
            wiring: (
                setup, verifier,
                { event in
                    events.sink(event)
                    onEvent.handle?(event)
                }
            ),
            on: channel.pipeline.syncOperations
        )
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 4433)).wait()
    }

    /// TLS finished: the peer presented `identity`'s certificate (judged by the verifier, as NIOSSL would have
    /// it judged) and agreed on `negotiated`.
    func completeTLS(
        presenting identity: DeviceIdentity,
        negotiated: String? = PeerTLS.applicationProtocol
    ) throws {
        let certificate = try NIOSSLCertificate(bytes: identity.certificateDER, format: .der)
        let verified = loop.makePromise(of: NIOSSLVerificationResultWithMetadata.self)
        verifier.verify([certificate], verified)
        _ = try verified.futureResult.wait()
        channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: negotiated))
        loop.run()
    }

    /// Moves the loop's time on, running every timer that falls due on the way.
    func advance(by amount: TimeAmount) {
        loop.advanceTime(by: amount)
    }

    /// The frames written since the last call, decoded with the wire codec.
    func sent() throws -> [PeerFrame] {
        loop.run()
        var bytes = ByteBuffer()
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes.writeBuffer(&buffer) }
        var frames: [PeerFrame] = []
        while let frame = try PeerFrameDecoder.readFrame(from: &bytes, maximumPayload: Int(UInt32.max)) {
            frames.append(frame)
        }
        guard bytes.readableBytes == 0 else { throw EmbeddedLinkFailure.partialFrame(bytes.readableBytes) }
        return frames
    }

    /// The control messages among the frames written since the last call.
    func sentControl() throws -> [PeerControlMessage] {
        try sent().filter { $0.kind == .control }.map { try PeerControlMessage(decoding: $0.payload) }
    }

    /// The peer's frames arrive, in one read. Nothing is read once the channel is closed.
    func receive(_ frames: [PeerFrame]) throws {
        guard channel.isActive, !frames.isEmpty else { return }
        var bytes = ByteBuffer()
        for frame in frames { PeerFrameEncoder.write(frame, to: &bytes) }
        try channel.writeInbound(bytes)
        loop.run()
    }

    /// The owner writes to the connection, as a session does.
    func write(_ outbound: PeerOutbound) {
        channel.writeAndFlush(outbound, promise: nil)
        loop.run()
    }

    /// Closes the channel if the handler has not, without complaint about what is left in it.
    func finish() {
        tls.holdsClose = false
        _ = try? channel.finish(acceptAlreadyClosed: true)
    }

    /// Whether the channel is still open.
    var isActive: Bool { channel.isActive }

    /// The reasons of the `closed` events so far: `[nil]` after a goodbye, `[]` while open.
    var closeReasons: [PeerConnectionError?] {
        events.events.compactMap { if case .closed(let error) = $0 { .some(error) } else { nil } }
    }

    /// The whole messages reported so far, as text.
    var messages: [String] {
        events.events.compactMap { if case .message(let buffer) = $0 { String(buffer: buffer) } else { nil } }
    }

    /// The whole resource-stream messages reported so far, as text.
    var resources: [String] {
        events.events.compactMap { if case .resource(let buffer) = $0 { String(buffer: buffer) } else { nil } }
    }

    /// The sequence numbers the peer's RESUMEs announced, as reported so far.
    var resumed: [UInt64] {
        events.events.compactMap { if case .resumed(let sequence) = $0 { sequence } else { nil } }
    }

    /// The prompts reported so far.
    var prompts: [PeerHandshake.Prompt] {
        events.events.compactMap { if case .prompt(let prompt) = $0 { prompt } else { nil } }
    }

    var isConnected: Bool {
        events.events.contains { if case .connected = $0 { true } else { false } }
    }

    /// What the last `unacknowledged` event handed back, as text, if there was one.
    var unacknowledged: (messages: [String], next: UInt64)? {
        events.events.lazy.compactMap { event -> ([String], UInt64)? in
            guard case .unacknowledged(let messages, let next) = event else { return nil }
            return (messages.map { String(buffer: $0) }, next)
        }.last
    }
}

/// What an ``EmbeddedConnection``'s owner does with each event, on the loop.
final class EventTap: @unchecked Sendable {
    /// Set before the events it should see; the loop is the test's thread, so nothing else touches it.
    var handle: ((PeerConnectionEvent) -> Void)?
}

/// Why an embedded connection could not give a test what it asked for.
enum EmbeddedLinkFailure: Error, Equatable {
    case handshakeDidNotFinish
    /// The connection wrote the first bytes of a frame and not the rest.
    case partialFrame(Int)
}

/// Stands where `NIOSSLHandler` stands in the pipeline, passing bytes through both ways.
final class TLSStandIn: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer

    /// While set, a close is held here, as TLS holds it while it waits for a silent peer's close_notify (for up
    /// to its shutdown timeout); the channel stays open until this is cleared and it is closed again.
    var holdsClose = false
    /// Closes asked for and held.
    private(set) var heldCloses = 0
    /// Flushes that passed, each of which would be one write of the socket.
    private(set) var flushes = 0

    func flush(context: ChannelHandlerContext) {
        flushes += 1
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard holdsClose else { return context.close(mode: mode, promise: promise) }
        heldCloses += 1
        if let promise { context.channel.closeFuture.cascade(to: promise) }
    }
}

/// Frames a peer can send, for tests that play the peer by hand.
enum Frames {
    static func control(_ message: PeerControlMessage) -> PeerFrame {
        PeerFrame(kind: .control, streamID: PeerFrame.controlStream, payload: ByteBuffer(bytes: message.encoded()))
    }

    static func data(_ text: String, end: Bool = true, stream: UInt32 = PeerFrame.messageStream) -> PeerFrame {
        PeerFrame(kind: .data, flags: end ? .endOfMessage : [], streamID: stream, payload: ByteBuffer(string: text))
    }
}

/// Two `EmbeddedConnection`s wired back to back: `shuttle()` carries what each wrote to the other, so a test
/// decides when bytes travel, which way, and whether at all.
struct EmbeddedLink {
    let initiator: EmbeddedConnection
    let responder: EmbeddedConnection

    /// What crossed in one `shuttle()`.
    struct Traffic {
        var fromInitiator: [PeerFrame] = []
        var fromResponder: [PeerFrame] = []

        var controlFromInitiator: [PeerControlMessage] { Self.control(fromInitiator) }
        var controlFromResponder: [PeerControlMessage] { Self.control(fromResponder) }

        static func control(_ frames: [PeerFrame]) -> [PeerControlMessage] {
            frames.filter { $0.kind == .control }.compactMap { try? PeerControlMessage(decoding: $0.payload) }
        }

        /// The reliable messages among `frames`, each in one frame, as text.
        static func messages(_ frames: [PeerFrame]) -> [String] {
            frames.filter { $0.kind == .data && $0.streamID == PeerFrame.messageStream }.map {
                String(buffer: $0.payload)
            }
        }
    }

    /// A pair of pinned peers through TLS, with nothing sent yet. `pinned` false: first contact, with the code.
    static func authenticated(
        configuration: PeerConnectionConfiguration = .init(),
        pinned: Bool = true,
        responderTicket: PeerAdmission.Ticket? = nil
    ) throws -> EmbeddedLink {
        let ada = try TransportPeer("ada")
        let bob = try TransportPeer("bob")
        if pinned {
            try ada.store.set(.verified, for: bob.identity.deviceID, displayName: "bob")
            try bob.store.set(.verified, for: ada.identity.deviceID, displayName: "ada")
        }
        let link = EmbeddedLink(
            initiator: try EmbeddedConnection(ada, role: .initiator, configuration: configuration),
            responder: try EmbeddedConnection(
                bob,
                role: .responder,
                configuration: configuration,
                admissionTicket: responderTicket
            )
        )
        try link.initiator.completeTLS(presenting: bob.identity)
        try link.responder.completeTLS(presenting: ada.identity)
        return link
    }

    /// A pair of pinned peers, connected: each accepted the other's request as soon as it was asked.
    static func connected(configuration: PeerConnectionConfiguration = .init()) throws -> EmbeddedLink {
        let link = try authenticated(configuration: configuration)
        try link.shuttle()
        for side in [link.initiator, link.responder] where !side.prompts.isEmpty {
            side.write(.decision(accept: true))
        }
        try link.shuttle()
        guard link.initiator.isConnected && link.responder.isConnected else {
            throw EmbeddedLinkFailure.handshakeDidNotFinish
        }
        return link
    }

    /// Carries what each side wrote to the other until neither has anything more to say.
    @discardableResult
    func shuttle() throws -> Traffic {
        var traffic = Traffic()
        while true {
            let fromInitiator = try initiator.sent()
            let fromResponder = try responder.sent()
            if fromInitiator.isEmpty && fromResponder.isEmpty { return traffic }
            traffic.fromInitiator += fromInitiator
            traffic.fromResponder += fromResponder
            try responder.receive(fromInitiator)
            try initiator.receive(fromResponder)
        }
    }

    /// Moves both loops' time on by `amount`, in `step`s, carrying what was written after each.
    @discardableResult
    func advance(by amount: TimeAmount, step: TimeAmount = .milliseconds(100)) throws -> Traffic {
        var traffic = Traffic()
        var left = amount
        while left > .zero {
            let now = min(step, left)
            initiator.advance(by: now)
            responder.advance(by: now)
            let moved = try shuttle()
            traffic.fromInitiator += moved.fromInitiator
            traffic.fromResponder += moved.fromResponder
            left = left - now
        }
        return traffic
    }

    func finish() {
        initiator.finish()
        responder.finish()
    }
}
