import HuddleTransport
import HuddleWire
import NIOCore
import NIOEmbedded
import Testing

/// Sequence numbers, cumulative ACKs and RESUME between two connections on `EmbeddedChannel`s: what the peer did not
/// acknowledge is handed back, in order, when the connection ends, and RESUME sends the kept messages first. (The
/// goodbye's wait for the last ACK is in `ConnectedPhaseEmbeddedTests`.)
@Suite("Reliable delivery on embedded connections")
struct ReliableDeliveryEmbeddedTests {
    @Test func acknowledgedMessagesAreNotHandedBack() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        for text in ["one", "two"] { link.initiator.write(.message(ByteBuffer(string: text))) }
        let traffic = try link.shuttle()
        #expect(link.responder.messages == ["one", "two"])
        // The reader acknowledges at the end of its read, once for both.
        #expect(traffic.controlFromResponder == [.ack(2)])
        _ = link.initiator.channel.close()
        link.initiator.loop.run()
        #expect(link.initiator.unacknowledged?.messages == [])
        #expect(link.initiator.unacknowledged?.next == 2)
    }

    @Test func unacknowledgedMessagesAreHandedBackInOrder() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        for index in 0..<5 { link.initiator.write(.message(ByteBuffer(string: "lost \(index)"))) }
        // The peer never reads them: the connection is cut with all five on their way.
        _ = link.initiator.channel.close()
        link.initiator.loop.run()
        #expect(link.initiator.unacknowledged?.messages == (0..<5).map { "lost \($0)" })
        #expect(link.initiator.unacknowledged?.next == 5)
        #expect(link.initiator.closeReasons.count == 1)
    }

    @Test func resumeSendsAgainFirstAndNumbersOn() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        link.initiator.write(.resume(from: 7, redeliver: ["again 7", "again 8"].map { ByteBuffer(string: $0) }))
        link.initiator.write(.message(ByteBuffer(string: "new 9")))
        let traffic = try link.shuttle()
        #expect(link.responder.resumed == [7])
        #expect(link.responder.messages == ["again 7", "again 8", "new 9"])
        #expect(traffic.controlFromResponder == [.ack(10)])
        // A second RESUME is refused by the writer: the numbering is set once per connection.
        let refused = link.initiator.channel.writeAndFlush(PeerOutbound.resume(from: 0, redeliver: []))
        link.initiator.loop.run()
        #expect(throws: PeerConnectionError.self) { try refused.wait() }
        _ = link.initiator.channel.close()
        link.initiator.loop.run()
        #expect(link.initiator.unacknowledged?.messages == [])
        #expect(link.initiator.unacknowledged?.next == 10)
    }

    /// With an `acknowledgementDelay`, the ACK waits that long for a frame going out: a reply written within it
    /// (from anywhere) carries it, and without one it goes alone when the delay is up.
    @Test func anAcknowledgementDelayLetsALaterReplyCarryTheAcknowledgement() throws {
        var configuration = PeerConnectionConfiguration()
        configuration.acknowledgementDelay = .milliseconds(5)
        let link = try EmbeddedLink.connected(configuration: configuration)
        defer { link.finish() }
        let responder = link.responder
        link.initiator.write(.message(ByteBuffer(string: "ping")))
        try responder.receive(try link.initiator.sent())
        #expect(try responder.sent().isEmpty)
        responder.advance(by: .milliseconds(4))
        let flushes = responder.tls.flushes
        responder.write(.message(ByteBuffer(string: "pong")))
        let reply = try responder.sent()
        #expect(responder.tls.flushes == flushes + 1)
        #expect(EmbeddedLink.Traffic.messages(reply) == ["pong"])
        #expect(EmbeddedLink.Traffic.control(reply) == [.ack(1)])
        responder.advance(by: .milliseconds(1))
        #expect(try responder.sent().isEmpty, "nothing more when the delay is up")

        link.initiator.write(.message(ByteBuffer(string: "note")))
        try responder.receive(try link.initiator.sent())
        responder.advance(by: .milliseconds(4))
        #expect(try responder.sent().isEmpty)
        responder.advance(by: .milliseconds(1))
        #expect(try responder.sentControl() == [.ack(2)])
    }
}
