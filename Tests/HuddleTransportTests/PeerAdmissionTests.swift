import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import NIOPosix
import Synchronization
import Testing

@Suite("Admission of unauthenticated connections", .tags(.real), .timeLimit(.minutes(1)))
struct PeerAdmissionTests {

    /// The listener's wiring on real sockets: ten silent connections from one address take its four places and
    /// no more (the other six are closed at once), a peer from another address pairs meanwhile and gives its place
    /// back at the prompt, and a held connection gives its place back when it ends. That a held connection ends at
    /// the TLS deadline is "Admission deadlines on embedded channels"; here the deadline is far beyond the test's
    /// time limit, so that nothing in it depends on how fast the machine is.
    @Test func slowConnectionsFillOnlyTheirAddressShareAndAPeerStillPairs() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let bob = try TransportPeer("bob")
        let ada = try TransportPeer("ada")
        var configuration = PeerConnectionConfiguration()
        configuration.tlsHandshakeTimeout = .seconds(3600)
        let admission = PeerAdmission(maximumTotal: 16, maximumPerAddress: 4)
        let serverLog = EventLog()
        let accepted = Mutex<[any Channel]>([])
        let listener = try await PeerChannels.listen(
            host: "127.0.0.1",
            port: 0,
            group: group,
            tls: bob.tls,
            admission: admission
        ) { [configuration] channel in
            accepted.withLock { $0.append(channel) }
            return (bob.setup(.responder, configuration: configuration), bob.verifier(), serverLog.sink)
        }
        defer { listener.close(promise: nil) }
        // Ten silent connections from 127.0.0.2: six are closed by the listener at once, four are held.
        let (closes, closed) = AsyncStream.makeStream(of: Int.self)
        var silent: [any Channel] = []
        for index in 0..<10 {
            let channel = try await ClientBootstrap(group: group)
                .bind(to: try SocketAddress(ipAddress: "127.0.0.2", port: 0))
                .connect(to: listener.localAddress!).get()
            channel.closeFuture.whenComplete { _ in closed.yield(index) }
            silent.append(channel)
        }
        var refused: Set<Int> = []
        for await index in closes {
            refused.insert(index)
            if refused.count == 6 { break }
        }
        // Six refusals mean four were admitted before them: all that is pending.
        #expect(admission.pending == 4)
        let held = silent.indices.filter { !refused.contains($0) }.map { silent[$0] }
        #expect(held.count == 4 && held.allSatisfy(\.isActive))

        // A peer from another address pairs meanwhile; the prompt gave its place back.
        let clientLog = EventLog()
        let client = try await PeerChannels.dial(
            listener.localAddress!,
            group: group,
            tls: ada.tls,
            wiring: (ada.setup(.initiator, configuration: configuration), ada.verifier(), clientLog.sink)
        )
        _ = try #require(await serverLog.wait(for: PeerConnectionTests.prompt))
        #expect(admission.pending == 4)
        let server = try #require(accepted.withLock { $0.first { $0.remoteAddress?.ipAddress == "127.0.0.1" } })
        try await server.writeAndFlush(PeerOutbound.decision(accept: true))
        try await client.writeAndFlush(PeerOutbound.decision(accept: true))
        _ = try #require(await clientLog.wait(for: PeerConnectionTests.connected))

        // The held ones end: each gives its place back before its server side reports it closed.
        for channel in held { try await channel.close() }
        for _ in 0..<4 { _ = try #require(await serverLog.wait(for: PeerConnectionTests.closed)) }
        #expect(admission.pending == 0)
        try await client.close()
    }
}
