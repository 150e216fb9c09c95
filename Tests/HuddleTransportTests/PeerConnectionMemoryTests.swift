import HuddleTestSupport
import HuddleWire
import NIOCore
import NIOEmbedded
import Testing

@testable import HuddleTransport

/// Two Huddle connections joined in memory with real NIOSSL (``InMemoryTLS``): what the handshake and the
/// connected phase do end to end, without sockets. `PeerConnectionTests` keeps the code shown on both sides and a
/// pinned reconnect on loopback.
@Suite("Peer connections over TLS, in memory")
struct PeerConnectionMemoryTests {
    /// Ada dials Bob (the other end); nothing is decided yet.
    static func link(
        _ ada: TransportPeer,
        _ bob: TransportPeer,
        expecting expected: DeviceID? = nil,
        configuration: PeerConnectionConfiguration = .init()
    ) throws -> InMemoryTLS {
        let link = try InMemoryTLS(
            ada,
            as: .initiator,
            against: .huddle(bob),
            expecting: expected,
            configuration: configuration
        )
        try link.run()
        return link
    }

    /// Both ends accept: the connection is up on both.
    static func accepted(_ link: InMemoryTLS) throws {
        #expect(link.otherEvents.recorder.events.contains { PeerConnectionTests.prompt($0) != nil })
        try link.write(.decision(accept: true), on: link.other)
        try link.write(.decision(accept: true), on: link.huddle)
        #expect(link.otherEvents.recorder.events.contains { PeerConnectionTests.connected($0) != nil })
        #expect(link.events.contains { PeerConnectionTests.connected($0) != nil })
    }

    static func messages(_ log: EventLog) -> [ByteBuffer] {
        log.recorder.events.compactMap(PeerConnectionTests.message)
    }

    static func closeReason(_ events: [PeerConnectionEvent]) -> PeerConnectionError?? {
        events.lazy.compactMap(PeerConnectionTests.closed).first
    }

    @Test func messagesOfSeveralMebibytesArriveWhole() throws {
        var configuration = PeerConnectionConfiguration()
        configuration.maximumMessageSize = 8 * 1024 * 1024
        let link = try Self.link(try TransportPeer("ada"), try TransportPeer("bob"), configuration: configuration)
        defer { link.finish() }
        try Self.accepted(link)
        let bytes = (0..<(5 * 1024 * 1024 + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        try link.write(.message(ByteBuffer(bytes: bytes)), on: link.huddle)
        try link.write(.message(ByteBuffer(string: "after")), on: link.huddle)
        let received = Self.messages(link.otherEvents)
        #expect(received.count == 2)
        #expect(received.first.map { Array($0.readableBytesView) } == bytes)
        #expect(received.last.map { String(buffer: $0) } == "after")
        // Over the limit: refused at the sender, the connection stays up.
        let tooBig = ByteBuffer(repeating: 0, count: 8 * 1024 * 1024 + 1)
        #expect(throws: PeerWireError.messageTooLarge(limit: 8 * 1024 * 1024, declared: 8 * 1024 * 1024 + 1)) {
            try link.huddle.writeAndFlush(PeerOutbound.message(tooBig)).wait()
        }
        try link.run()
        #expect(link.huddle.isActive && link.other.isActive)
    }

    @Test(arguments: [true, false])
    func denyReachesBothSides(serverDenies: Bool) throws {
        let (ada, bob) = (try TransportPeer("ada"), try TransportPeer("bob"))
        let link = try Self.link(ada, bob)
        defer { link.finish() }
        #expect(link.otherEvents.recorder.events.contains { PeerConnectionTests.prompt($0) != nil })
        try link.write(.decision(accept: false), on: serverDenies ? link.other : link.huddle)
        let expected = PeerConnectionError.wire(.pairingRejected(reason: .denied))
        #expect(Self.closeReason(link.events) == .some(expected))
        #expect(Self.closeReason(link.otherEvents.recorder.events) == .some(expected))
        #expect(bob.store.records.isEmpty && ada.store.records.isEmpty)
    }

    @Test func pinnedDeviceWithAnotherKeyIsRefusedInTLS() throws {
        let (ada, bob, impostor) = (try TransportPeer("ada"), try TransportPeer("bob"), try TransportPeer("bob"))
        try ada.store.set(.verified, for: bob.identity.deviceID, displayName: "bob")
        let link = try Self.link(ada, impostor, expecting: bob.identity.deviceID)
        defer { link.finish() }
        #expect(
            Self.closeReason(link.events)
                == .some(.peerIdentityMismatch(expected: bob.identity.deviceID, presented: impostor.identity.deviceID))
        )
        #expect(!link.events.contains { PeerConnectionTests.authenticated($0) != nil })
    }

    @Test func blockedDeviceIsRefusedInTLS() throws {
        let (ada, bob) = (try TransportPeer("ada"), try TransportPeer("bob"))
        try bob.store.set(.blocked, for: ada.identity.deviceID, displayName: "ada")
        let link = try Self.link(ada, bob)
        defer { link.finish() }
        #expect(Self.closeReason(link.otherEvents.recorder.events) == .some(.blocked(ada.identity.deviceID)))
        let clientError = try #require(Self.closeReason(link.events))
        #expect(clientError != nil)
    }

    /// A lie written past the client's handler, through TLS, closes the server with the reason, and its CLOSE
    /// reaches the client through TLS. The rules themselves (ACK, RESUME, empty frames, PING flood, heartbeat)
    /// are checked on embedded channels, in "Peers that lie about delivery" and "Connected phase on embedded
    /// channels".
    @Test func protocolViolationReachesTheLiarOverTLS() throws {
        let link = try Self.link(try TransportPeer("ada"), try TransportPeer("bob"))
        defer { link.finish() }
        try Self.accepted(link)
        for text in ["one", "two"] { try link.write(.message(ByteBuffer(string: text)), on: link.other) }
        #expect(Self.messages(link.log).map { String(buffer: $0) } == ["one", "two"])
        let lie = PeerFrame(
            kind: .control,
            streamID: PeerFrame.controlStream,
            payload: ByteBuffer(bytes: PeerControlMessage.ack(3).encoded())
        )
        let context = try link.huddle.pipeline.syncOperations.context(handlerType: PeerConnectionHandler.self)
        context.writeAndFlush(NIOAny(lie), promise: nil)
        try link.run()
        let violation = PeerConnectionError.wire(.protocolViolation(state: "connected", message: "ACK of 3 beyond 2"))
        #expect(Self.closeReason(link.otherEvents.recorder.events) == .some(violation))
        #expect(Self.closeReason(link.events) == .some(.wire(.closedByPeer(reason: .protocolError))))
    }
}
