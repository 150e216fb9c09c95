import HuddleTransport
import HuddleWire
import NIOCore
import Testing

/// Sequence numbers, cumulative ACKs and RESUME on real TLS connections over loopback: what the peer did not
/// acknowledge is handed back, in order, when the connection ends.
@Suite("Reliable delivery across connections", .timeLimit(.minutes(2)))
struct ReliableDeliveryTests {
    let harness = PeerConnectionTests()

    static func unacknowledged(_ event: PeerConnectionEvent) -> (messages: [String], next: UInt64)? {
        guard case .unacknowledged(let messages, let next) = event else { return nil }
        return (messages.map { String(buffer: $0) }, next)
    }

    static func resumed(_ event: PeerConnectionEvent) -> UInt64? {
        if case .resumed(let sequence) = event { return sequence }
        return nil
    }

    func connectedLink(configuration: PeerConnectionConfiguration = .init()) async throws -> Link {
        let link = try await harness.connect(
            try TransportPeer("ada"),
            try TransportPeer("bob"),
            configuration: configuration
        )
        _ = try #require(await link.serverLog.wait(for: PeerConnectionTests.prompt))
        try await link.decide(server: true)
        try await link.decide(client: true)
        _ = try #require(await link.serverLog.wait(for: PeerConnectionTests.connected))
        _ = try #require(await link.clientLog.wait(for: PeerConnectionTests.connected))
        return link
    }

    /// The server reads, acknowledges at the end of the read, then answers: the answer comes after the ACK on the
    /// wire, so once it arrives nothing is left to hand back.
    @Test func acknowledgedMessagesAreNotHandedBack() async throws {
        let link = try await connectedLink()
        for index in 0..<20 {
            try await link.client.writeAndFlush(PeerOutbound.message(ByteBuffer(string: "m\(index)")))
        }
        for index in 0..<20 {
            #expect(
                await link.serverLog.wait(for: PeerConnectionTests.message).map { String(buffer: $0) } == "m\(index)"
            )
        }
        try await link.server()!.writeAndFlush(PeerOutbound.message(ByteBuffer(string: "seen")))
        #expect(await link.clientLog.wait(for: PeerConnectionTests.message).map { String(buffer: $0) } == "seen")
        try await link.client.close()
        let left = try #require(await link.clientLog.wait(for: Self.unacknowledged))
        #expect(left.messages.isEmpty)
        #expect(left.next == 20)
        await link.close()
    }

    /// A receiver that stops reading acknowledges nothing: a connection cut then hands every message back, in
    /// the order written, with the number the next one would have had.
    @Test func unacknowledgedMessagesAreHandedBackInOrder() async throws {
        // The server stops reading, so it hears nothing: on a machine loaded enough to stretch the five writes
        // below past the default 15 s, its heartbeat would close the connection under them. Not the case tested.
        var configuration = PeerConnectionConfiguration()
        configuration.disconnectTimeout = .seconds(120)
        let link = try await connectedLink(configuration: configuration)
        try await link.server()!.setOption(.autoRead, value: false).get()
        for index in 0..<5 {
            try await link.client.writeAndFlush(PeerOutbound.message(ByteBuffer(string: "lost \(index)")))
        }
        try await link.client.close()
        let left = try #require(await link.clientLog.wait(for: Self.unacknowledged))
        #expect(left.messages == (0..<5).map { "lost \($0)" })
        #expect(left.next == 5)
        #expect(await link.clientLog.wait(for: PeerConnectionTests.closed) != nil)
        await link.close()
    }

    /// RESUME numbers the stream from the given number; the messages to send again go first.
    @Test func resumeSendsAgainFirstAndNumbersOn() async throws {
        let link = try await connectedLink()
        let again = [ByteBuffer(string: "again 7"), ByteBuffer(string: "again 8")]
        try await link.client.writeAndFlush(PeerOutbound.resume(from: 7, redeliver: again))
        try await link.client.writeAndFlush(PeerOutbound.message(ByteBuffer(string: "new 9")))
        #expect(await link.serverLog.wait(for: Self.resumed) == 7)
        for text in ["again 7", "again 8", "new 9"] {
            #expect(await link.serverLog.wait(for: PeerConnectionTests.message).map { String(buffer: $0) } == text)
        }
        // A second RESUME is refused by the writer: the numbering is set once per connection.
        await #expect(throws: PeerConnectionError.self) {
            try await link.client.writeAndFlush(PeerOutbound.resume(from: 0, redeliver: []))
        }
        try await link.server()!.writeAndFlush(PeerOutbound.message(ByteBuffer(string: "seen")))
        _ = try #require(await link.clientLog.wait(for: PeerConnectionTests.message))
        try await link.client.close()
        let left = try #require(await link.clientLog.wait(for: Self.unacknowledged))
        #expect(left.messages.isEmpty)
        #expect(left.next == 10)
        await link.close()
    }

    /// A goodbye right behind a burst waits for the peer's last ACK, so nothing it read is reported lost.
    @Test func goodbyeWaitsForTheLastAcknowledgement() async throws {
        let link = try await connectedLink()
        for index in 0..<50 {
            link.client.write(PeerOutbound.message(ByteBuffer(string: "burst \(index)")), promise: nil)
        }
        try await link.client.writeAndFlush(PeerOutbound.close(.goodbye))
        for index in 0..<50 {
            #expect(
                await link.serverLog.wait(for: PeerConnectionTests.message).map { String(buffer: $0) }
                    == "burst \(index)"
            )
        }
        #expect(await link.serverLog.wait(for: PeerConnectionTests.closed) == .some(nil))
        let left = try #require(await link.clientLog.wait(for: Self.unacknowledged))
        #expect(left.messages.isEmpty)
        #expect(left.next == 50)
        #expect(await link.clientLog.wait(for: PeerConnectionTests.closed) == .some(nil))
        await link.close()
    }
}
