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
        // The reader acknowledges both at once, 20 ms after its read when nothing it writes carries the ACK sooner.
        #expect(traffic.controlFromResponder == [])
        #expect(try link.advance(by: .milliseconds(19), step: .milliseconds(19)).controlFromResponder == [])
        #expect(try link.advance(by: .milliseconds(1)).controlFromResponder == [.ack(2)])
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
        try link.shuttle()
        #expect(link.responder.resumed == [7])
        #expect(link.responder.messages == ["again 7", "again 8", "new 9"])
        #expect(try link.advance(by: .milliseconds(20)).controlFromResponder == [.ack(10)])
        // A second RESUME is refused by the writer: the numbering is set once per connection.
        let refused = link.initiator.channel.writeAndFlush(PeerOutbound.resume(from: 0, redeliver: []))
        link.initiator.loop.run()
        #expect(throws: PeerConnectionError.self) { try refused.wait() }
        _ = link.initiator.channel.close()
        link.initiator.loop.run()
        #expect(link.initiator.unacknowledged?.messages == [])
        #expect(link.initiator.unacknowledged?.next == 10)
    }

    /// A reply written before the ACK's delay is up carries the ACK in the same flush: a request and its answer cost
    /// one write each way, and no ACK goes alone afterwards.
    @Test func aReplyCarriesThePendingAcknowledgement() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        link.initiator.write(.message(ByteBuffer(string: "ping")))
        try link.responder.receive(try link.initiator.sent())
        #expect(link.responder.messages == ["ping"])
        link.responder.write(.message(ByteBuffer(string: "pong")))
        let reply = try link.responder.sent()
        #expect(EmbeddedLink.Traffic.control(reply) == [.ack(1)])
        #expect(EmbeddedLink.Traffic.messages(reply) == ["pong"])
        try link.initiator.receive(reply)
        #expect(link.initiator.messages == ["pong"])
        // Nothing more from the responder when the delay is up; the initiator's own ACK of "pong" goes then.
        let later = try link.advance(by: .milliseconds(20))
        #expect(later.controlFromResponder == [])
        #expect(later.controlFromInitiator == [.ack(1)])
        _ = link.initiator.channel.close()
        link.initiator.loop.run()
        #expect(link.initiator.unacknowledged?.messages == [])
    }

    /// Once 256 KiB arrived since the last ACK, the ACK goes at the end of the read, without waiting.
    @Test func aLargeBatchIsAcknowledgedAtOnce() throws {
        let link = try EmbeddedLink.connected()
        defer { link.finish() }
        let large = ByteBuffer(repeating: 7, count: 256 * 1024)
        link.initiator.write(.message(large))
        let traffic = try link.shuttle()
        #expect(link.responder.messages.count == 1)
        #expect(traffic.controlFromResponder == [.ack(1)])
    }
}
