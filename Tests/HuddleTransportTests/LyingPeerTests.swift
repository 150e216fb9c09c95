import HuddleTransport
import HuddleWire
import NIOCore
import Testing

/// A connected, authenticated peer that breaks the rules of delivery on purpose — acknowledges messages it was never
/// sent, numbers its stream after sending, sends frames that carry nothing — is closed with a protocol error, on
/// real TLS connections over loopback (`docs/security.md` §5 B7 and H). The lies are written past the client's
/// connection handler, straight to its frame encoder.
@Suite("Peers that lie about delivery")
struct LyingPeerTests {
    let delivery = ReliableDeliveryTests()

    static func protocolViolation(_ message: String) -> PeerConnectionError {
        .wire(.protocolViolation(state: "connected", message: message))
    }

    static let closedByPeer = PeerConnectionError.wire(.closedByPeer(reason: .protocolError))

    /// What the server saw until it closed: the messages (as text) and why it closed.
    static func messagesUntilClosed(_ log: EventLog) async -> (messages: [String], closed: PeerConnectionError?)? {
        var messages: [String] = []
        let closed = await log.wait(within: 30) { event -> PeerConnectionError?? in
            switch event {
            case .message(let buffer):
                messages.append(String(buffer: buffer))
                return nil
            case .closed(let error):
                return .some(error)
            default:
                return nil
            }
        }
        guard let closed else { return nil }
        return (messages, closed)
    }

    /// Writes frames from the client as they are, skipping its connection handler (and its checks).
    func inject(_ frames: [PeerFrame], from channel: any Channel) async throws {
        try await channel.eventLoop.submit {
            let context = try channel.pipeline.syncOperations.context(handlerType: PeerConnectionHandler.self)
            for frame in frames { context.write(NIOAny(frame), promise: nil) }
            context.flush()
        }.get()
    }

    static func control(_ message: PeerControlMessage) -> PeerFrame {
        PeerFrame(kind: .control, streamID: PeerFrame.controlStream, payload: ByteBuffer(bytes: message.encoded()))
    }

    static func data(_ text: String, end: Bool, stream: UInt32 = PeerFrame.messageStream) -> PeerFrame {
        PeerFrame(kind: .data, flags: end ? .endOfMessage : [], streamID: stream, payload: ByteBuffer(string: text))
    }

    static func resource(_ event: PeerConnectionEvent) -> String? {
        if case .resource(let buffer) = event { return String(buffer: buffer) }
        return nil
    }

    /// Acknowledging more than was sent would make the sender drop messages the peer never had.
    @Test func acknowledgingMoreThanWasSentCloses() async throws {
        let link = try await delivery.connectedLink()
        let server = try #require(link.server())
        for text in ["one", "two"] { try await server.writeAndFlush(PeerOutbound.message(ByteBuffer(string: text))) }
        for text in ["one", "two"] {
            #expect(await link.clientLog.wait(for: PeerConnectionTests.message).map { String(buffer: $0) } == text)
        }
        try await inject([Self.control(.ack(3))], from: link.client)
        let seen = try #require(await Self.messagesUntilClosed(link.serverLog))
        #expect(seen.closed == Self.protocolViolation("ACK of 3 beyond 2"))
        #expect(await link.clientLog.wait(for: PeerConnectionTests.closed) == .some(Self.closedByPeer))
        await link.close()
    }

    /// An acknowledgement within what was sent, even a repeated or an old one, is no lie.
    @Test func repeatedAndOldAcknowledgementsAreHarmless() async throws {
        let link = try await delivery.connectedLink()
        let server = try #require(link.server())
        for text in ["one", "two"] { try await server.writeAndFlush(PeerOutbound.message(ByteBuffer(string: text))) }
        for text in ["one", "two"] {
            #expect(await link.clientLog.wait(for: PeerConnectionTests.message).map { String(buffer: $0) } == text)
        }
        try await inject([Self.control(.ack(2)), Self.control(.ack(1)), Self.control(.ack(2))], from: link.client)
        try await server.writeAndFlush(PeerOutbound.message(ByteBuffer(string: "three")))
        #expect(await link.clientLog.wait(for: PeerConnectionTests.message).map { String(buffer: $0) } == "three")
        try await link.client.writeAndFlush(PeerOutbound.message(ByteBuffer(string: "still here")))
        #expect(await link.serverLog.wait(for: PeerConnectionTests.message).map { String(buffer: $0) } == "still here")
        #expect(server.isActive && link.client.isActive)
        await link.close()
    }

    /// RESUME renumbers the stream: after a message, it could make the receiver drop or repeat messages.
    @Test func resumeAfterAMessageCloses() async throws {
        let link = try await delivery.connectedLink()
        try await link.client.writeAndFlush(PeerOutbound.message(ByteBuffer(string: "first")))
        try await inject([Self.control(.resume(0))], from: link.client)
        let seen = try #require(await Self.messagesUntilClosed(link.serverLog))
        #expect(seen.messages == ["first"])
        #expect(seen.closed == Self.protocolViolation("RESUME after messages"))
        await link.close()
    }

    @Test func secondResumeCloses() async throws {
        let link = try await delivery.connectedLink()
        try await link.client.writeAndFlush(PeerOutbound.resume(from: 4, redeliver: []))
        #expect(await link.serverLog.wait(for: ReliableDeliveryTests.resumed) == 4)
        try await inject([Self.control(.resume(9)), Self.data("after", end: true)], from: link.client)
        let seen = try #require(await Self.messagesUntilClosed(link.serverLog))
        #expect(seen.messages.isEmpty)
        #expect(seen.closed == Self.protocolViolation("RESUME after messages"))
        await link.close()
    }

    /// A RESUME far beyond any message sent would make every later message of the peer look like a duplicate
    /// (review F2: one message after RESUME(2⁶²) silenced a peer for the rest of the session).
    @Test func resumeBeyondAnyMessageSentCloses() async throws {
        let link = try await delivery.connectedLink()
        try await inject([Self.control(.resume(1 << 62)), Self.data("after", end: true)], from: link.client)
        let seen = try #require(await Self.messagesUntilClosed(link.serverLog))
        #expect(seen.messages.isEmpty)
        #expect(seen.closed == Self.protocolViolation("RESUME beyond any message sent"))
        await link.close()
    }

    /// A thousand data frames that carry nothing hit the glitch limit (B7); no message is made of them.
    @Test func emptyFramesHitTheGlitchLimit() async throws {
        let link = try await delivery.connectedLink()
        let empty = Array(repeating: Self.data("", end: false), count: 1000)
        try await inject(empty + [Self.data("end", end: true)], from: link.client)
        let seen = try #require(await Self.messagesUntilClosed(link.serverLog))
        #expect(seen.messages.isEmpty)
        #expect(seen.closed == Self.protocolViolation("over 100 empty frames"))
        #expect(await link.clientLog.wait(for: PeerConnectionTests.closed) == .some(Self.closedByPeer))
        await link.close()
    }

    /// Up to the limit they are tolerated and add nothing to the message they sit in. (Sent on the resource
    /// stream, whose messages are not numbered: one injected on the message stream would be acknowledged, and the
    /// client's handler, which never wrote it, would rightly close at that ACK.)
    @Test func emptyFramesUpToTheLimitAreTolerated() async throws {
        let link = try await delivery.connectedLink()
        let stream = PeerFrame.resourceStream
        let frames =
            [Self.data("he", end: false, stream: stream)]
            + Array(repeating: Self.data("", end: false, stream: stream), count: 100)
            + [Self.data("llo", end: true, stream: stream)]
        try await inject(frames, from: link.client)
        #expect(await link.serverLog.wait(for: Self.resource) == "hello")
        try await link.client.writeAndFlush(PeerOutbound.message(ByteBuffer(string: "next")))
        #expect(await link.serverLog.wait(for: PeerConnectionTests.message).map { String(buffer: $0) } == "next")
        #expect(try #require(link.server()).isActive)
        await link.close()
    }

    /// Zero-length messages are messages (the API sends them): a thousand arrive as a thousand, in order with the
    /// others, and the connection stays.
    @Test func zeroLengthMessagesAreDelivered() async throws {
        let link = try await delivery.connectedLink()
        for _ in 0..<1000 { link.client.write(PeerOutbound.message(ByteBuffer()), promise: nil) }
        try await link.client.writeAndFlush(PeerOutbound.message(ByteBuffer(string: "last")))
        var sizes: [Int] = []
        while let message = await link.serverLog.wait(for: PeerConnectionTests.message) {
            sizes.append(message.readableBytes)
            if message.readableBytes > 0 { break }
        }
        #expect(sizes == Array(repeating: 0, count: 1000) + [4])
        #expect(try #require(link.server()).isActive)
        await link.close()
    }

    /// §5 B3: the wire has no room for what it does not know. A frame of an unknown kind, or a control message of
    /// an unknown type, closes the connection with a protocol error; nothing after it is delivered.
    @Test(arguments: [
        (
            PeerFrame(kind: .init(rawValue: 7), streamID: PeerFrame.messageStream, payload: ByteBuffer(string: "?")),
            Self.protocolViolation("frame kind 7 on stream 1")
        ),
        (
            PeerFrame(kind: .control, streamID: PeerFrame.controlStream, payload: ByteBuffer(bytes: [0xEE, 0, 0])),
            PeerConnectionError.wire(.malformedMessage("unknown control message type 238"))
        ),
    ])
    func unknownFrameKindsAndControlMessagesClose(unknown: PeerFrame, error: PeerConnectionError) async throws {
        let link = try await delivery.connectedLink()
        try await inject([Self.data("before", end: true), unknown, Self.data("after", end: true)], from: link.client)
        let seen = try #require(await Self.messagesUntilClosed(link.serverLog))
        #expect(seen.messages == ["before"])
        #expect(seen.closed == error)
        #expect(await link.clientLog.wait(for: PeerConnectionTests.closed) == .some(Self.closedByPeer))
        await link.close()
    }
}
