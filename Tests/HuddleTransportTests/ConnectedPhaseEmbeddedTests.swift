import HuddleTransport
import HuddleWire
import NIOCore
import Testing

/// The connected phase's timers and limits (`docs/security.md` §4.9 heartbeat, §5 C5 PING flood), on embedded
/// channels whose time moves only when the test says: heartbeats, the silent peer, the PING limit and the wait
/// after a goodbye, each to the millisecond of its configured value, in milliseconds of real time.
@Suite("Connected phase on embedded channels")
struct ConnectedPhaseEmbeddedTests {
    static let flood = PeerConnectionError.wire(
        .protocolViolation(state: "connected", message: "PING flood (over 20 a second)")
    )

    /// The PINGs among `messages`, by value.
    static func pings(_ messages: [PeerControlMessage]) -> [UInt64] {
        messages.compactMap { if case .ping(let value) = $0 { value } else { nil } }
    }

    /// The PONGs among `messages`, by value.
    static func pongs(_ messages: [PeerControlMessage]) -> [UInt64] {
        messages.compactMap { if case .pong(let value) = $0 { value } else { nil } }
    }

    /// Idle, each side PINGs after `pingAfter` (5 s) of silence and answers the other's PING: the link outlives
    /// four disconnect timeouts (15 s) with nothing else said.
    @Test func heartbeatsKeepAnIdleLinkAlive() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        let quiet = try link.advance(by: .milliseconds(4900))
        #expect(quiet.fromInitiator.isEmpty && quiet.fromResponder.isEmpty)
        let first = try link.advance(by: .milliseconds(100))
        #expect(first.controlFromInitiator == [.ping(1), .pong(1)])
        #expect(first.controlFromResponder == [.ping(1), .pong(1)])

        let minute = try link.advance(by: .seconds(60))
        for sent in [minute.controlFromInitiator, minute.controlFromResponder] {
            #expect(Self.pings(sent) == Array(2...13))
            #expect(Self.pongs(sent) == Array(2...13))
            #expect(sent.count == 24)
        }
        for side in [link.initiator, link.responder] {
            #expect(side.isActive)
            #expect(side.closeReasons.isEmpty)
        }
    }

    /// A peer that stops sending is PINGed once, then reported unresponsive `disconnectTimeout` after the last
    /// frame heard from it (within one tick of the once-a-second heartbeat), and told why.
    @Test func silentPeerIsDroppedAtTheDisconnectTimeout() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        let server = link.responder
        // The last thing heard from the client comes 2.5 s in; from then on nothing it writes arrives.
        server.advance(by: .milliseconds(2500))
        link.initiator.write(.message(ByteBuffer(string: "last words")))
        try server.receive(link.initiator.sent())
        #expect(server.messages == ["last words"])
        #expect(try server.sentControl() == [.ack(1)])

        // A PING after 5 s of silence (by the next tick of the heartbeat, once a second).
        server.advance(by: .seconds(6))
        #expect(try server.sentControl() == [.ping(1)])
        // Still there just before 15 s of silence, 17.5 s in...
        server.advance(by: .milliseconds(17_499 - 8_500))
        #expect(server.isActive)
        #expect(server.closeReasons.isEmpty)
        #expect(try server.sent().isEmpty)
        // ... and gone by the next tick.
        server.advance(by: .milliseconds(1001))
        #expect(try server.sentControl() == [.close(.unresponsive)])
        #expect(server.closeReasons == [.unresponsive])
        #expect(!server.isActive)
    }

    /// A silent peer does not answer TLS's close_notify either, and TLS holds the close until its shutdown
    /// timeout: the peer is reported gone at the disconnect timeout all the same, once, and nothing that still
    /// arrives while TLS shuts down is taken.
    @Test func silentPeerIsReportedBeforeTLSHasClosed() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        let server = link.responder
        server.tls.holdsClose = true
        server.advance(by: .seconds(16))
        #expect(try server.sentControl() == [.ping(1), .close(.unresponsive)])
        #expect(server.closeReasons == [.unresponsive])
        #expect(server.tls.heldCloses >= 1)
        #expect(server.isActive)

        link.initiator.write(.message(ByteBuffer(string: "too late")))
        try server.receive(link.initiator.sent())
        #expect(server.messages.isEmpty)
        #expect(try server.sent().isEmpty)
        server.tls.holdsClose = false
        server.channel.close(promise: nil)
        #expect(!server.isActive)
        #expect(server.closeReasons == [.unresponsive])
        #expect(server.unacknowledged?.messages == [])
    }

    /// Up to `maximumPingsPerSecond` (20) PINGs within a second are answered, a second later 20 more; one more
    /// within the same second closes the connection with a protocol error, and the flooder hears it.
    @Test func pingFloodClosesTheConnection() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        let server = link.responder
        try server.receive((1...20).map { Frames.control(.ping($0)) })
        #expect(try server.sentControl() == (1...20).map { .pong($0) })
        server.advance(by: .seconds(1))
        try server.receive((21...40).map { Frames.control(.ping($0)) })
        #expect(try server.sentControl() == (21...40).map { .pong($0) })
        #expect(server.closeReasons.isEmpty)

        server.advance(by: .milliseconds(999))
        try server.receive([Frames.control(.ping(41))])
        let answer = try server.sent()
        #expect(EmbeddedLink.Traffic.control(answer) == [.close(.protocolError)])
        #expect(server.closeReasons == [Self.flood])
        #expect(!server.isActive)
        try link.initiator.receive(answer)
        #expect(link.initiator.closeReasons == [.wire(.closedByPeer(reason: .protocolError))])
    }

    /// An honest peer's heartbeat is far below the limit, whatever the configuration: one PING per `pingAfter`.
    @Test func pingsSlowerThanTheLimitAreAnswered() throws {
        var configuration = PeerConnectionConfiguration()
        configuration.maximumPingsPerSecond = 2
        let link = try EmbeddedLink.connected(configuration: configuration)
        defer { link.finish() }
        let server = link.responder
        for value in UInt64(1)...30 {
            server.advance(by: .milliseconds(500))
            try server.receive([Frames.control(.ping(value))])
            #expect(Self.pongs(try server.sentControl()) == [value])
        }
        #expect(server.closeReasons.isEmpty)
    }

    /// Goodbye with nothing unacknowledged: CLOSE, and closed at once on both sides, with no error.
    @Test func goodbyeWithNothingOutstandingClosesAtOnce() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        link.initiator.write(.close(.goodbye))
        let sent = try link.initiator.sent()
        #expect(EmbeddedLink.Traffic.control(sent) == [.close(.goodbye)])
        #expect(!link.initiator.isActive)
        #expect(link.initiator.closeReasons == [nil])
        try link.responder.receive(sent)
        #expect(link.responder.closeReasons == [nil])
        #expect(!link.responder.isActive)
    }

    /// Goodbye with messages not yet acknowledged waits for the peer's answer: the peer acknowledges what it read
    /// before it closes, and that ACK closes this side with nothing handed back as lost.
    @Test func goodbyeWaitsForThePeersLastAcknowledgement() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        let server = link.responder
        for text in ["one", "two"] { server.write(.message(ByteBuffer(string: text))) }
        server.write(.close(.goodbye))
        let goodbye = try server.sent()
        #expect(EmbeddedLink.Traffic.control(goodbye) == [.close(.goodbye)])
        server.advance(by: .milliseconds(999))
        #expect(server.isActive)
        #expect(server.closeReasons.isEmpty)

        try link.initiator.receive(goodbye)
        #expect(link.initiator.messages == ["one", "two"])
        #expect(link.initiator.closeReasons == [nil])
        let answer = try link.initiator.sent()
        #expect(EmbeddedLink.Traffic.control(answer) == [.ack(2)])
        try server.receive(answer)
        #expect(!server.isActive)
        #expect(server.closeReasons == [nil])
        #expect(server.unacknowledged?.messages == [])
        #expect(server.unacknowledged?.next == 2)
    }

    /// A peer that never answers the goodbye is not waited for past `goodbyeAcknowledgementTimeout` (1 s): the
    /// connection closes, still without an error, and hands back what was not acknowledged.
    @Test func goodbyeStopsWaitingAtTheTimeout() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        let server = link.responder
        for text in ["one", "two"] { server.write(.message(ByteBuffer(string: text))) }
        server.write(.close(.goodbye))
        server.advance(by: .milliseconds(999))
        #expect(server.isActive)
        server.advance(by: .milliseconds(1))
        #expect(!server.isActive)
        #expect(server.closeReasons == [nil])
        #expect(server.unacknowledged?.messages == ["one", "two"])
        #expect(server.unacknowledged?.next == 2)
    }
}
