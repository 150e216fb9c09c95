import HuddleTransport
import HuddleWire
import NIOCore
import Testing

/// A connected, authenticated peer that breaks the rules of delivery on purpose — acknowledges messages it was never
/// sent, numbers its stream after sending, sends frames that carry nothing, or kinds the wire does not know — is
/// closed with a protocol error, and hears why (`docs/security.md` §5 B3, B7 and H).
///
/// On embedded channels: the lies are bytes written straight into the server's pipeline, as they would come out of
/// TLS, past the client's connection handler and its checks. "A protocol violation reaches the liar over TLS" in
/// "Peer connections over TLS on loopback" shows the same close on a real connection.
@Suite("Peers that lie about delivery")
struct LyingPeerTests {
    static func protocolViolation(_ message: String) -> PeerConnectionError {
        .wire(.protocolViolation(state: "connected", message: message))
    }

    static let closedByPeer = PeerConnectionError.wire(.closedByPeer(reason: .protocolError))

    /// The server (responder) closed with `error` and said so with CLOSE(protocol error), which the client hears.
    static func expectClosed(_ link: EmbeddedLink, with error: PeerConnectionError) throws {
        let sent = try link.responder.sent()
        #expect(EmbeddedLink.Traffic.control(sent).last == .close(.protocolError))
        #expect(link.responder.closeReasons == [error])
        #expect(!link.responder.isActive)
        try link.initiator.receive(sent)
        #expect(link.initiator.closeReasons == [Self.closedByPeer])
    }

    /// Acknowledging more than was sent would make the sender drop messages the peer never had.
    @Test func acknowledgingMoreThanWasSentCloses() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        for text in ["one", "two"] { link.responder.write(.message(ByteBuffer(string: text))) }
        let traffic = try link.shuttle()
        #expect(link.initiator.messages == ["one", "two"])
        #expect(traffic.controlFromInitiator == [.ack(2)])
        try link.responder.receive([Frames.control(.ack(3))])
        try Self.expectClosed(link, with: Self.protocolViolation("ACK of 3 beyond 2"))
        // What the honest ACK covered is not handed back as lost.
        #expect(link.responder.unacknowledged?.messages == [])
        #expect(link.responder.unacknowledged?.next == 2)
    }

    /// An acknowledgement within what was sent, even a repeated or an old one, is no lie.
    @Test func repeatedAndOldAcknowledgementsAreHarmless() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        for text in ["one", "two"] { link.responder.write(.message(ByteBuffer(string: text))) }
        try link.shuttle()
        let acknowledgements: [PeerControlMessage] = [.ack(2), .ack(1), .ack(2), .ack(0)]
        try link.responder.receive(acknowledgements.map(Frames.control))
        link.responder.write(.message(ByteBuffer(string: "three")))
        link.initiator.write(.message(ByteBuffer(string: "still here")))
        try link.shuttle()
        #expect(link.initiator.messages == ["one", "two", "three"])
        #expect(link.responder.messages == ["still here"])
        #expect(link.responder.isActive && link.initiator.isActive)
        #expect(link.responder.closeReasons.isEmpty && link.initiator.closeReasons.isEmpty)
    }

    /// RESUME renumbers the stream: after a message, it could make the receiver drop or repeat messages.
    @Test func resumeAfterAMessageCloses() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        link.initiator.write(.message(ByteBuffer(string: "first")))
        try link.responder.receive(link.initiator.sent())
        #expect(link.responder.messages == ["first"])
        try link.responder.receive([Frames.control(.resume(0))])
        try Self.expectClosed(link, with: Self.protocolViolation("RESUME after messages"))
        #expect(link.responder.messages == ["first"])
    }

    @Test func secondResumeCloses() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        link.initiator.write(.resume(from: 4, redeliver: []))
        try link.shuttle()
        #expect(link.responder.resumed == [4])
        try link.responder.receive([Frames.control(.resume(9)), Frames.data("after")])
        try Self.expectClosed(link, with: Self.protocolViolation("RESUME after messages"))
        #expect(link.responder.messages.isEmpty)
    }

    /// A RESUME far beyond any message sent would make every later message of the peer look like a duplicate
    /// (review F2: one message after RESUME(2⁶²) silenced a peer for the rest of the session). Sequence numbers
    /// stay below 2⁴⁸: the last one below is taken, the limit itself is not.
    @Test(arguments: [PeerConnectionConfiguration.sequenceLimit, 1 << 62, UInt64.max])
    func resumeBeyondAnyMessageSentCloses(sequence: UInt64) throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        try link.responder.receive([Frames.control(.resume(sequence)), Frames.data("after")])
        try Self.expectClosed(link, with: Self.protocolViolation("RESUME beyond any message sent"))
        #expect(link.responder.messages.isEmpty)
    }

    @Test func resumeJustBelowTheSequenceLimitIsTaken() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        let last = PeerConnectionConfiguration.sequenceLimit - 1
        try link.responder.receive([Frames.control(.resume(last)), Frames.data("after")])
        #expect(link.responder.resumed == [last])
        #expect(link.responder.messages == ["after"])
        #expect(link.responder.closeReasons.isEmpty)
    }

    /// Data frames that carry nothing hit the glitch limit (B7) at the 101st; no message is made of them.
    @Test(arguments: [101, 1000])
    func emptyFramesHitTheGlitchLimit(count: Int) throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        let empty = Array(repeating: Frames.data("", end: false), count: count)
        try link.responder.receive(empty + [Frames.data("end")])
        try Self.expectClosed(link, with: Self.protocolViolation("over 100 empty frames"))
        #expect(link.responder.messages.isEmpty)
    }

    /// Up to the limit they are tolerated and add nothing to the message they sit in. (Sent on the resource
    /// stream, whose messages are not numbered: one injected on the message stream would be acknowledged, and the
    /// client's handler, which never wrote it, would rightly close at that ACK.)
    @Test func emptyFramesUpToTheLimitAreTolerated() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        let stream = PeerFrame.resourceStream
        try link.responder.receive(
            [Frames.data("he", end: false, stream: stream)]
                + Array(repeating: Frames.data("", end: false, stream: stream), count: 100)
                + [Frames.data("llo", stream: stream)]
        )
        #expect(link.responder.resources == ["hello"])
        link.initiator.write(.message(ByteBuffer(string: "next")))
        try link.shuttle()
        #expect(link.responder.messages == ["next"])
        #expect(link.responder.isActive)
        #expect(link.responder.closeReasons.isEmpty)
    }

    /// Zero-length messages are messages (the API sends them): a thousand arrive as a thousand, in order with the
    /// others, and the connection stays.
    @Test func zeroLengthMessagesAreDelivered() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        for _ in 0..<1000 { link.initiator.write(.message(ByteBuffer())) }
        link.initiator.write(.message(ByteBuffer(string: "last")))
        try link.shuttle()
        #expect(link.responder.messages == Array(repeating: "", count: 1000) + ["last"])
        #expect(link.responder.isActive)
        #expect(link.responder.closeReasons.isEmpty)
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
    func unknownFrameKindsAndControlMessagesClose(unknown: PeerFrame, error: PeerConnectionError) throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        try link.responder.receive([Frames.data("before"), unknown, Frames.data("after")])
        try Self.expectClosed(link, with: error)
        #expect(link.responder.messages == ["before"])
    }
}
