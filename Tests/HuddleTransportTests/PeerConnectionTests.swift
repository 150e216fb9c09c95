import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// Both ends of one loopback connection.
struct Link {
    var client: any Channel
    var clientLog: EventLog
    var server: () -> (any Channel)?
    var serverLog: EventLog
    var listener: any Channel

    func decide(server accept: Bool) async throws {
        try await server()!.writeAndFlush(PeerOutbound.decision(accept: accept))
    }

    func decide(client accept: Bool) async throws {
        try await client.writeAndFlush(PeerOutbound.decision(accept: accept))
    }

    func close() async {
        try? await client.close()
        try? await listener.close()
    }
}

/// The code shown on both sides and a pinned reconnect, on loopback: the rest of what a connection does runs in
/// memory (`PeerConnectionMemoryTests`).
@Suite("Peer connections over TLS on loopback", .tags(.real), .timeLimit(.minutes(2)))
struct PeerConnectionTests {
    /// Two pinned peers connected over TLS: each accepted the other's request.
    func connectedLink(configuration: PeerConnectionConfiguration = .init()) async throws -> Link {
        let link = try await connect(try TransportPeer("ada"), try TransportPeer("bob"), configuration: configuration)
        _ = try #require(await link.serverLog.wait(for: Self.prompt))
        try await link.decide(server: true)
        try await link.decide(client: true)
        _ = try #require(await link.serverLog.wait(for: Self.connected))
        _ = try #require(await link.clientLog.wait(for: Self.connected))
        return link
    }

    let group = MultiThreadedEventLoopGroup.singleton

    func connect(
        _ initiator: TransportPeer,
        _ responder: TransportPeer,
        expecting expected: DeviceID? = nil,
        configuration: PeerConnectionConfiguration = .init()
    ) async throws -> Link {
        let serverLog = EventLog()
        let accepted = Mutex<(any Channel)?>(nil)
        let listener = try await PeerChannels.listen(host: "127.0.0.1", port: 0, group: group, tls: responder.tls) {
            channel in
            accepted.withLock { $0 = channel }
            return (responder.setup(.responder, configuration: configuration), responder.verifier(), serverLog.sink)
        }
        let clientLog = EventLog()
        let wiring = (
            initiator.setup(.initiator, configuration: configuration), initiator.verifier(expecting: expected),
            clientLog.sink
        )
        let client = try await PeerChannels.dial(
            listener.localAddress!,
            group: group,
            tls: initiator.tls,
            wiring: wiring
        )
        return Link(
            client: client,
            clientLog: clientLog,
            server: { accepted.withLock { $0 } },
            serverLog: serverLog,
            listener: listener
        )
    }

    static func prompt(_ event: PeerConnectionEvent) -> PeerHandshake.Prompt? {
        if case .prompt(let prompt) = event { return prompt }
        return nil
    }

    static func connected(_ event: PeerConnectionEvent) -> PeerHandshake.Outcome? {
        if case .connected(let outcome) = event { return outcome }
        return nil
    }

    static func message(_ event: PeerConnectionEvent) -> ByteBuffer? {
        if case .message(let message) = event { return message }
        return nil
    }

    static func closed(_ event: PeerConnectionEvent) -> PeerConnectionError?? {
        if case .closed(let error) = event { return .some(error) }
        return nil
    }

    static func authenticated(_ event: PeerConnectionEvent) -> DeviceID? {
        if case .authenticated(let id) = event { return id }
        return nil
    }

    @Test func pairingShowsOneCodeOnBothSidesThenMessagesFlowInOrder() async throws {
        let ada = try TransportPeer("ada")
        let bob = try TransportPeer("bob")
        let link = try await connect(ada, bob)
        #expect(await link.clientLog.wait(for: Self.authenticated) == bob.identity.deviceID)
        let codeAda = try #require(await link.clientLog.wait(for: Self.prompt)?.code)
        #expect(await link.serverLog.wait(for: Self.authenticated) == ada.identity.deviceID)
        let bobPrompt = try #require(await link.serverLog.wait(for: Self.prompt))
        #expect(bobPrompt.code == codeAda)
        #expect(bobPrompt.context == Array("hi".utf8))
        #expect(bobPrompt.peerHello.displayName == "ada")
        try await link.decide(server: true)
        try await link.decide(client: true)
        let outcomeAda = try #require(await link.clientLog.wait(for: Self.connected))
        let outcomeBob = try #require(await link.serverLog.wait(for: Self.connected))
        #expect(outcomeAda.pairedWithCode && outcomeBob.pairedWithCode)
        #expect(outcomeAda.transcript == outcomeBob.transcript)

        // Ordered messages, one of several MiB cut into many frames.
        var configuration = PeerConnectionConfiguration()
        configuration.maximumMessageSize = 8 * 1024 * 1024
        let big = ByteBuffer(bytes: (0..<(3 * 1024 * 1024 + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        for index in 0..<50 {
            try await link.client.writeAndFlush(PeerOutbound.message(ByteBuffer(string: "line \(index)")))
        }
        for index in 0..<50 {
            let message = try #require(await link.serverLog.wait(for: Self.message))
            #expect(String(buffer: message) == "line \(index)")
        }
        _ = big
        try await link.server()!.writeAndFlush(PeerOutbound.message(ByteBuffer(string: "back")))
        #expect(await link.clientLog.wait(for: Self.message).map { String(buffer: $0) } == "back")

        try await link.client.writeAndFlush(PeerOutbound.close(.goodbye))
        #expect(await link.serverLog.wait(for: Self.closed) == .some(nil))
        #expect(await link.clientLog.wait(for: Self.closed) == .some(nil))
        await link.close()
    }

    @Test func pinnedPeersReconnectWithoutACode() async throws {
        let ada = try TransportPeer("ada")
        let bob = try TransportPeer("bob")
        try ada.store.set(.verified, for: bob.identity.deviceID, displayName: "bob")
        try bob.store.set(.verified, for: ada.identity.deviceID, displayName: "ada")
        let link = try await connect(ada, bob, expecting: bob.identity.deviceID)
        let prompt = try #require(await link.serverLog.wait(for: Self.prompt))
        #expect(prompt.code == nil)
        try await link.decide(server: true)
        #expect(try #require(await link.clientLog.wait(for: Self.connected)).pairedWithCode == false)
        await link.close()
    }
}
