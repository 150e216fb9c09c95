import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import Testing

/// Passes everything it reads to its partner channel: the plaintext pipe of a relay.
final class RelayHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let partner: Mutex<(any Channel)?> = Mutex(nil)
    let pending: Mutex<[ByteBuffer]> = Mutex([])

    func connect(to channel: any Channel) {
        let queued = partner.withLock { partner -> [ByteBuffer] in
            partner = channel
            return pending.withLock { pending in
                defer { pending.removeAll() }
                return pending
            }
        }
        for buffer in queued { channel.writeAndFlush(buffer, promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        guard let channel = partner.withLock({ $0 }) else {
            pending.withLock { $0.append(buffer) }
            return
        }
        channel.writeAndFlush(buffer, promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner.withLock { $0 }?.close(promise: nil)
    }
}

@Suite("A man in the middle", .tags(.real), .timeLimit(.minutes(2)))
struct ManInTheMiddleTests {
    let group = MultiThreadedEventLoopGroup.singleton

    /// Mallory terminates TLS towards Ada and towards Bob with her own key and relays the plaintext frames.
    @Test func relayWithItsOwnKeyIsCaughtByTheCommitment() async throws {
        let ada = try TransportPeer("ada")
        let bob = try TransportPeer("bob")
        let mallory = try TransportPeer("mallory")
        let bobLog = EventLog()
        let bobListener = try await PeerChannels.listen(host: "127.0.0.1", port: 0, group: group, tls: bob.tls) { _ in
            (bob.setup(.responder), bob.verifier(), bobLog.sink)
        }
        let bobAddress = bobListener.localAddress!
        let accepting = PeerVerifier(expected: nil, isBlocked: { _ in false })
        let relay = try await ServerBootstrap(group: group)
            .childChannelInitializer { [group] towardsAda in
                let fromAda = RelayHandler()
                let fromBob = RelayHandler()
                fromBob.connect(to: towardsAda)
                ClientBootstrap(group: group)
                    .channelInitializer { towardsBob in
                        towardsBob.eventLoop.makeCompletedFuture {
                            try towardsBob.pipeline.syncOperations.addHandler(
                                try mallory.tls.clientHandler(verifier: accepting)
                            )
                            try towardsBob.pipeline.syncOperations.addHandler(fromBob)
                        }
                    }
                    .connect(to: bobAddress)
                    .whenSuccess { fromAda.connect(to: $0) }
                return towardsAda.eventLoop.makeCompletedFuture {
                    try towardsAda.pipeline.syncOperations.addHandler(mallory.tls.serverHandler(verifier: accepting))
                    try towardsAda.pipeline.syncOperations.addHandler(fromAda)
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let adaLog = EventLog()
        let client = try await PeerChannels.dial(
            relay.localAddress!,
            group: group,
            tls: ada.tls,
            wiring: (ada.setup(.initiator), ada.verifier(), adaLog.sink)
        )
        // Each side authenticated Mallory's key, not the other's.
        #expect(await adaLog.wait(for: PeerConnectionTests.authenticated) == mallory.identity.deviceID)
        #expect(await bobLog.wait(for: PeerConnectionTests.authenticated) == mallory.identity.deviceID)
        // Bob checks Ada's revealed nonce against a commitment made over other keys: refused, nobody connects.
        #expect(await bobLog.wait(for: PeerConnectionTests.closed) == .some(.wire(.sasCommitmentMismatch)))
        let adaClosed = try #require(await adaLog.wait(for: PeerConnectionTests.closed))
        #expect(adaClosed == .wire(.closedByPeer(reason: .protocolError)) || adaClosed == .connectionLost)
        #expect(ada.store.records.isEmpty && bob.store.records.isEmpty)
        try? await client.close()
        try? await relay.close()
        try? await bobListener.close()
    }
}
